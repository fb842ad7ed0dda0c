import { z } from 'zod'
import { parseInstant } from '../schemas/index.js'
import { inRange, rangeText, SEED_RANGE } from '../schemas/instantRange.js'
import { ERROR_RATE_RULE, readErrorRate } from '../schemas/settings.js'
import type { SeedIdentity } from '../schemas/snapshot.js'
import type { WorldRecords } from '../schemas/stored.js'
import { iso } from '../seed/iso.js'
import { hash32 } from '../seed/random.js'
import { businessTypes, defaultOrganizations, OrganizationFixture } from '../seed/fixtures.js'
import { checkedRecords, type GivenRecords, recordsHash } from './checkedRecords.js'
import { isPublicKey, withUrlsShown } from './credentials.js'
import { DEFAULT_JOURNAL_SIZE } from './Journal.js'
import { DEFAULT_JOURNAL_BYTES, parseJournalBytes } from './JournalBudget.js'
import { parseLatency, type Latency } from './latency.js'
import { parseRateLimit, type RateLimit } from './RateLimiter.js'
import { scenarioNamed, sizedFor, type ScenarioName } from './scenarios.js'

export interface SandboxOptions {
  /** Seed of the generated world; default 1. */
  seed?: number
  /** The instant the world is seeded at (ISO string, Date or epoch ms); default the current time. */
  now?: string | number | Date
  /**
   * `fixed`: the clock stands still at `now` until set or advanced; `running`: it follows the real time. Default
   * `fixed` when `now` is given, else `running`.
   */
  clock?: 'fixed' | 'running'
  /** How many calls the first organization gets (default: its fixture's, 300 for the default world). */
  calls?: number
  /** Organizations, keys and sizes; default `fixtures/organizations.json`. */
  organizations?: readonly OrganizationFixture[]
  /** Origin (and optional path) the handlers answer on, e.g. `https://api.example.com`; default any origin. */
  baseUrl?: string
  /**
   * A named world of `fixtures/scenarios.json`: `default`, `empty`, `busy` or `degraded`. Other options win over the
   * scenario's.
   */
  scenario?: ScenarioName
  /**
   * Added to every API answer: milliseconds (`250`), a range (`'100-400'`) or `{ min, max }`; `null`: none, whatever the
   * scenario says. Changed at run time with `sandbox.settings.update`.
   */
  latency?: number | string | Latency | null
  /** Fraction (0 to 1) of API requests answered with a 500 or 503, drawn from the seed; `null`: none. */
  errorRate?: number | null
  /** Requests per key and window, such as `'60/min'` or `{ limit: 60, windowMs: 60_000 }`; default none. */
  rateLimit?: string | RateLimit | null
  /** How many requests the journal keeps, newest first; default 1,000. */
  journalSize?: number
  /**
   * What the request journals may hold together: this sandbox's and its sessions' (`--journal-bytes`). Bytes, or a
   * size such as `'256MiB'`; default 128 MiB. Past it, the journal holding the most loses its oldest entries first.
   */
  journalBytes?: number | string
  /** When set, `/_sandbox/` answers only `Authorization: Bearer <adminToken>`. */
  adminToken?: string
  /** Live mode: a caller rings every interval (`true`: 30 s; milliseconds; or `'10s'`, `'2m'`, `'500ms'`). */
  live?: boolean | number | string
  /**
   * Records to start from instead of seeding (a recorded world, `--world`):
   * each kind's stored records, of the `organizations`; calls with
   * `message_times`. A reset comes back to them; a scenario changes only faults.
   */
  records?: GivenRecords
}

export interface ResolvedOptions {
  seed: number
  /** The seed instant, epoch ms. */
  now: number
  /** Whether the clock stands still (at `now`, until set or advanced). */
  fixedClock: boolean
  organizations: OrganizationFixture[]
  /** Without a trailing slash. */
  baseUrl: string | undefined
  scenario: ScenarioName
  latency: Latency | undefined
  errorRate: number
  rateLimit: RateLimit | undefined
  journalSize: number
  /** What the journals may hold together, in bytes. */
  journalBytes: number
  adminToken: string | undefined
  /** Live mode's interval in milliseconds; undefined when off. */
  live: number | undefined
  /** The records the world starts from instead of its seed's, checked; undefined: seeded. */
  records: WorldRecords | undefined
}

const Organizations = z
  .array(OrganizationFixture)
  .min(1, 'needs at least one organization')
  .superRefine((organizations, context) => {
    const ids = new Set<string>()
    const keys = new Set<string>()
    for (const organization of organizations) {
      if (ids.has(organization.organization_id)) {
        context.addIssue({ code: 'custom', message: `organization_id ${organization.organization_id} appears twice` })
      }
      ids.add(organization.organization_id)
      // Checked here, not only by the seed: a world is seeded after the sandbox is made, and its errors come late.
      if (!businessTypes.has(organization.business_type)) {
        const known = [...businessTypes.keys()].join(', ')
        context.addIssue({
          code: 'custom',
          message: `organization ${organization.organization_id} has business_type "${organization.business_type}"; known types: ${known}`,
        })
      }
      for (const { key } of organization.keys) {
        if (keys.has(key)) context.addIssue({ code: 'custom', message: `API key ${key} appears twice` })
        keys.add(key)
      }
    }
  })

/**
 * Checks the options and fills in the defaults; a wrong option throws an
 * error that names it and says what it takes.
 */
/** What an admin token may be: an Authorization header carries it whole. */
export const ADMIN_TOKEN_PATTERN = /^[\x21-\x7e]{8,200}$/
export const ADMIN_TOKEN_RULE = '8 to 200 visible ASCII characters, without spaces'

export function resolveOptions(options: SandboxOptions = {}): ResolvedOptions {
  const seed = options.seed ?? 1
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw new TypeError(`seed must be a non-negative integer; got ${String(options.seed)}.`)
  const now = options.now === undefined ? Date.now() : toEpochMs(options.now)
  const scenario = scenarioNamed(options.scenario ?? 'default')
  const parsed = Organizations.safeParse(options.organizations ?? defaultOrganizations)
  if (!parsed.success) throw new TypeError(`organizations are invalid:\n${z.prettifyError(parsed.error)}`)
  const organizations = sizedFor(scenario, parsed.data)
  if (options.calls !== undefined) {
    if (!Number.isSafeInteger(options.calls) || options.calls < 0 || options.calls > 1_000_000) {
      throw new TypeError(`calls must be an integer from 0 to 1,000,000; got ${String(options.calls)}.`)
    }
    organizations[0] = { ...organizations[0]!, calls: options.calls }
  }
  const clock = options.clock ?? (options.now === undefined ? 'running' : 'fixed')
  if (clock !== 'fixed' && clock !== 'running')
    throw new TypeError(`clock must be "fixed" or "running"; got ${String(clock)}.`)
  const faults = faultOptionsOf(options)
  const { adminToken } = options
  if (adminToken !== undefined && (typeof adminToken !== 'string' || !ADMIN_TOKEN_PATTERN.test(adminToken))) {
    throw new TypeError(`adminToken must be ${ADMIN_TOKEN_RULE}.`)
  }
  if (adminToken !== undefined && isPublicKey(adminToken))
    throw new TypeError(`adminToken must be a secret: ${adminToken} is a built-in key, which anyone may know.`)
  return {
    seed,
    now,
    fixedClock: clock === 'fixed',
    organizations,
    baseUrl: normalizeBaseUrl(options.baseUrl),
    scenario: (options.scenario ?? 'default') as ScenarioName,
    ...faults,
    journalSize: options.journalSize ?? DEFAULT_JOURNAL_SIZE,
    journalBytes: options.journalBytes === undefined ? DEFAULT_JOURNAL_BYTES : parseJournalBytes(options.journalBytes),
    adminToken,
    live: parseInterval(options.live),
    records: options.records === undefined ? undefined : checkedRecords(options.records, organizations),
  }
}

/**
 * The latency, error rate and rate limit that options give, their scenario's where they give none (`null`: none,
 * whatever the scenario says): what a world's settings start from. Throws an error naming a wrong one.
 *
 * @example
 * faultOptionsOf({ scenario: 'degraded', errorRate: null }) // { latency: { min: 200, max: 1500 }, errorRate: 0, … }
 */
export function faultOptionsOf(options: SandboxOptions): Pick<ResolvedOptions, 'latency' | 'errorRate' | 'rateLimit'> {
  const scenario = scenarioNamed(options.scenario ?? 'default')
  const latency = options.latency === null ? undefined : (options.latency ?? scenario.latency)
  const errorRate = options.errorRate === null ? 0 : (options.errorRate ?? scenario.error_rate ?? 0)
  if (readErrorRate(errorRate) === undefined)
    throw new TypeError(`errorRate must be ${ERROR_RATE_RULE}; got ${String(errorRate)}.`)
  const { rateLimit } = options
  return {
    latency: latency === undefined ? undefined : parseLatency(latency),
    errorRate,
    rateLimit: rateLimit === undefined || rateLimit === null ? undefined : parseRateLimit(rateLimit),
  }
}

const DEFAULT_LIVE_INTERVAL_MS = 30_000
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000 }

/**
 * A duration in milliseconds: `500ms`, `10s`, `2m`, `24h`, `7d`, or milliseconds; undefined for anything else.
 *
 * @example
 * parseDuration('24h') // 86_400_000
 */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d{1,9})(ms|s|m|min|h|d)?$/.exec(text.trim())
  return match ? Number(match[1]) * UNIT_MS[match[2] ?? 'ms']! : undefined
}

/**
 * Live mode's interval: `true` is 30 s; a number is milliseconds; a string
 * is a duration (`500ms`, `10s`, `2m`) or milliseconds. From 100 ms to an hour.
 *
 * @example
 * parseInterval('10s') // 10_000
 */
export function parseInterval(live: boolean | number | string | undefined): number | undefined {
  if (live === undefined || live === false) return undefined
  if (live === true) return DEFAULT_LIVE_INTERVAL_MS
  const ms = typeof live === 'number' ? live : (parseDuration(live) ?? NaN)
  if (!Number.isSafeInteger(ms) || ms < 100 || ms > 3_600_000) {
    throw new TypeError(
      `live must be an interval from 100 ms to an hour, such as 30s, 2m or 5000; got ${JSON.stringify(live)}.`,
    )
  }
  return ms
}

function toEpochMs(now: string | number | Date): number {
  const ms = typeof now === 'string' ? parseInstant(now) : now instanceof Date ? now.getTime() : now
  if (ms === undefined || !Number.isFinite(ms)) {
    throw new TypeError(
      `now must be an ISO 8601 date-time such as 2026-11-20T12:00:00Z, a Date or epoch milliseconds; got ${String(now)}.`,
    )
  }
  // The world reaches 90 days back and books appointments weeks ahead: both must stay in the clock's range.
  if (!inRange(ms, SEED_RANGE)) throw new RangeError(`now must be from ${rangeText(SEED_RANGE)}; got ${String(now)}.`)
  return ms
}

function normalizeBaseUrl(baseUrl: string | undefined): string | undefined {
  if (baseUrl === undefined) return undefined
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    throw new TypeError(
      `baseUrl must be an absolute URL such as https://api.example.com; got ${withUrlsShown(baseUrl, [baseUrl])}.`,
    )
  }
  if (url.search || url.hash)
    throw new TypeError(`baseUrl must not have a query or fragment; got ${withUrlsShown(baseUrl, [baseUrl])}.`)
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`
}

/**
 * @note Options change only when a reset swaps the scenario: the seed's identity is worked out once per options, not
 * on every save.
 */
const identities = new WeakMap<ResolvedOptions, SeedIdentity>()

/** The seed options make a world from (see `seedOf`). */
export function seedOfOptions(options: ResolvedOptions): SeedIdentity {
  let identity = identities.get(options)
  if (!identity) {
    const { seed, now, fixedClock, scenario, organizations, records } = options
    const hashed = records === undefined ? organizations : [organizations, recordsHash(records)]
    identity = {
      seed,
      seeded_at: iso(now),
      clock: fixedClock ? 'fixed' : 'running',
      scenario,
      organizations: hash32(JSON.stringify(hashed)).toString(36),
    }
    identities.set(options, identity)
  }
  return identity
}
