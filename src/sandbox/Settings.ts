import {
  ERROR_RATE_RULE,
  rateLimitOf,
  readErrorRate,
  type SettingsRequest,
  type SettingsState,
} from '../schemas/settings.js'
import { parseLatency, type Latency } from './latency.js'
import type { ResolvedOptions } from './options.js'
import { parseRateLimit, type RateLimit } from './RateLimiter.js'

/** The latency, error rate and rate limit a world's API requests meet. */
export interface FaultSettings {
  latency: Latency | undefined
  /** 0: no simulated failures. */
  errorRate: number
  rateLimit: RateLimit | undefined
}

/** What `settings.update` takes: each setting to change as the options take it, `null` to turn it off. */
export interface SettingsChange {
  latency?: number | string | Latency | null
  errorRate?: number | null
  rateLimit?: string | RateLimit | null
}

/**
 * Settings as the control plane's bodies give them (`error_rate`, `rate_limit` with `window_ms`), as the sandbox takes
 * them; a setting a body leaves out is left out.
 */
export function settingsChangeOf({ latency, error_rate, rate_limit }: SettingsRequest): SettingsChange {
  const change: SettingsChange = {}
  if (latency !== undefined) change.latency = latency
  if (error_rate !== undefined) change.errorRate = error_rate
  if (rate_limit !== undefined) change.rateLimit = rate_limit === null ? null : rateLimitOf(rate_limit)
  return change
}

const NONE: FaultSettings = { latency: undefined, errorRate: 0, rateLimit: undefined }

const WIRE_NAMES = { latency: 'latency', errorRate: 'error_rate', rateLimit: 'rate_limit' } as const
type SettingName = keyof typeof WIRE_NAMES

/**
 * A world's run-time settings: those it started with (its options and
 * scenario), and the changes made since (`update`), which win over them.
 * A reset keeps the changes, as WireMock's keeps its global settings: it
 * restores the world and replays the fault stream from its start under the
 * settings in effect; `restore()` goes back to the starting ones. A
 * session keeps its settings apart from its world, as it keeps its
 * journal, so a world put away comes back with them.
 *
 * @example
 * sandbox.settings.update({ rateLimit: '2/min', errorRate: null })
 * sandbox.settings.current // { latency: undefined, errorRate: 0, rateLimit: { limit: 2, windowMs: 60_000 } }
 * sandbox.settings.restore()
 */
export class Settings {
  #start: FaultSettings | undefined
  #changes: Partial<FaultSettings> = {}
  /** Worked out once a change, not once a request: every API request reads it. */
  #current: FaultSettings = NONE

  /** The settings in effect: the changes over those the world started with. */
  get current(): FaultSettings {
    return this.#current
  }

  /** Whether any setting was changed at run time. */
  get changed(): boolean {
    return Object.keys(this.#changes).length > 0
  }

  /** Whether the world's starting settings are known yet (a session's before its world is first made: not). */
  get started(): boolean {
    return this.#start !== undefined
  }

  /**
   * Changes the settings from the next request on; the others stay as they are. Throws a `RangeError` naming a value
   * it cannot take, changing none.
   *
   * @example
   * sandbox.settings.update({ latency: '100-400', errorRate: 0.2 })
   */
  update(change: SettingsChange): FaultSettings {
    const parsed: Partial<FaultSettings> = {}
    if (change.latency !== undefined)
      parsed.latency = change.latency === null ? undefined : parseLatency(change.latency)
    if (change.errorRate !== undefined) parsed.errorRate = checkedErrorRate(change.errorRate ?? 0)
    if (change.rateLimit !== undefined)
      parsed.rateLimit = change.rateLimit === null ? undefined : parseRateLimit(change.rateLimit)
    this.#changes = { ...this.#changes, ...parsed }
    return this.#settle()
  }

  /**
   * Back to the settings the world started with (its options', its scenario's).
   *
   * @example
   * afterEach(() => sandbox.settings.restore())
   */
  restore(): FaultSettings {
    this.#changes = {}
    return this.#settle()
  }

  /** The settings as the control plane shows them. */
  state(): SettingsState {
    const { latency, errorRate, rateLimit } = this.#current
    return {
      latency: latency ? { min: latency.min, max: latency.max } : null,
      error_rate: errorRate,
      rate_limit: rateLimit ? { limit: rateLimit.limit, window_ms: rateLimit.windowMs } : null,
      changed: (Object.keys(this.#changes) as SettingName[]).map((name) => WIRE_NAMES[name]),
    }
  }

  /** The world's options were resolved (it was made, or a reset swapped its scenario): they are what it starts with. */
  startFrom({ latency, errorRate, rateLimit }: Pick<ResolvedOptions, keyof FaultSettings>): void {
    this.#start = { latency, errorRate, rateLimit }
    this.#settle()
  }

  #settle(): FaultSettings {
    this.#current = { ...NONE, ...this.#start, ...this.#changes }
    return this.#current
  }
}

function checkedErrorRate(value: number): number {
  const errorRate = readErrorRate(value)
  if (errorRate === undefined) throw new RangeError(`errorRate must be ${ERROR_RATE_RULE}; got ${String(value)}.`)
  return errorRate
}
