import { z } from 'zod'
import { parseInstant } from '../schemas/index.js'
import { defaultOrganizations, OrganizationFixture } from '../world/fixtures.js'

export interface SandboxOptions {
  /** Seed of the generated world; default 1. */
  seed?: number
  /** The instant the world is seeded at (ISO string, Date or epoch ms); default the current time. */
  now?: string | number | Date
  /** `fixed`: the clock stands still at `now` until set or advanced; `running`: it follows the real time. Default `fixed` when `now` is given, else `running`. */
  clock?: 'fixed' | 'running'
  /** How many calls the first organization gets (default: its fixture's, 300 for the default world). */
  calls?: number
  /** Organizations, keys and sizes; default `fixtures/organizations.json`. */
  organizations?: readonly OrganizationFixture[]
  /** Origin (and optional path) the handlers answer on, e.g. `https://api.example.com`; default any origin. */
  baseUrl?: string
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
export function resolveOptions(options: SandboxOptions = {}): ResolvedOptions {
  const seed = options.seed ?? 1
  if (!Number.isSafeInteger(seed) || seed < 0) throw new TypeError(`seed must be a non-negative integer; got ${String(options.seed)}.`)
  const now = options.now === undefined ? Date.now() : toEpochMs(options.now)
  const parsed = Organizations.safeParse(options.organizations ?? defaultOrganizations)
  if (!parsed.success) throw new TypeError(`organizations are invalid:\n${z.prettifyError(parsed.error)}`)
  const organizations = parsed.data
  if (options.calls !== undefined) {
    if (!Number.isSafeInteger(options.calls) || options.calls < 0 || options.calls > 1_000_000) {
      throw new TypeError(`calls must be an integer from 0 to 1,000,000; got ${String(options.calls)}.`)
    }
    organizations[0] = { ...organizations[0]!, calls: options.calls }
  }
  const clock = options.clock ?? (options.now === undefined ? 'running' : 'fixed')
  if (clock !== 'fixed' && clock !== 'running') throw new TypeError(`clock must be "fixed" or "running"; got ${String(clock)}.`)
  return { seed, now, fixedClock: clock === 'fixed', organizations, baseUrl: normalizeBaseUrl(options.baseUrl) }
}

function toEpochMs(now: string | number | Date): number {
  const ms = typeof now === 'string' ? parseInstant(now) : now instanceof Date ? now.getTime() : now
  if (ms === undefined || !Number.isFinite(ms)) {
    throw new TypeError(`now must be an ISO 8601 date-time such as 2026-11-20T12:00:00Z, a Date or epoch milliseconds; got ${String(now)}.`)
  }
  return ms
}

function normalizeBaseUrl(baseUrl: string | undefined): string | undefined {
  if (baseUrl === undefined) return undefined
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    throw new TypeError(`baseUrl must be an absolute URL such as https://api.example.com; got ${baseUrl}.`)
  }
  if (url.search || url.hash) throw new TypeError(`baseUrl must not have a query or fragment; got ${baseUrl}.`)
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`
}
