import {
  ERROR_RATE_RULE,
  rateLimitOf,
  readErrorRate,
  SettingsRequest,
  type SettingsState,
} from '../schemas/settings.js'
import { parseLatency, type Latency } from './latency.js'
import type { ResolvedOptions } from './options.js'
import { parseRateLimit, type RateLimit } from './RateLimiter.js'
import type { SharedSettings } from './StoreLog.js'

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
 * journal, so a world put away comes back with them. With a store a fleet
 * shares (`keepIn`), `updateEverywhere` and `restoreEverywhere` keep the
 * changes there, and every server applies them from its next request.
 *
 * @example
 * sandbox.settings.update({ rateLimit: '2/min', errorRate: null })
 * sandbox.settings.current // { latency: undefined, errorRate: 0, rateLimit: { limit: 2, windowMs: 60_000 } }
 * sandbox.settings.restore()
 */
export class Settings {
  #start: FaultSettings | undefined
  #shared: SharedSettings | undefined
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
    this.#changes = { ...this.#changes, ...parsed(change) }
    return this.#settle()
  }

  /**
   * As `update`, and with a store a fleet shares, kept there first: every server applies it from its next request.
   * Rejects as the store refuses it (a `StorageUnavailableError`), changing none.
   */
  async updateEverywhere(change: SettingsChange): Promise<FaultSettings> {
    if (!this.#shared) return this.update(change)
    const changing = parsed(change)
    // Over the changes the store holds when it keeps these (another server's may come first): see `SharedSettings`.
    await this.#shared.keep(() => keptText({ ...this.#changes, ...changing }))
    return this.#current
  }

  /** As `restore`, and with a store a fleet shares, kept there first (see `updateEverywhere`). */
  async restoreEverywhere(): Promise<FaultSettings> {
    if (!this.#shared) return this.restore()
    await this.#shared.keep(() => keptText({}))
    return this.#current
  }

  /** From now on the changes are the store's, which every server of a fleet applies; each counts its own budgets. */
  keepIn(shared: SharedSettings): void {
    this.#shared = shared
    shared.follow((text) => {
      this.#changes = changesOf(text)
      this.#settle()
    })
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
      // In one order, however the changes came: each server of a fleet shows the same.
      changed: (Object.keys(WIRE_NAMES) as SettingName[])
        .filter((name) => name in this.#changes)
        .map((name) => WIRE_NAMES[name]),
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

/** A change as the sandbox takes it: throws a `RangeError` naming a value it cannot take. */
function parsed(change: SettingsChange): Partial<FaultSettings> {
  const changes: Partial<FaultSettings> = {}
  if (change.latency !== undefined) changes.latency = change.latency === null ? undefined : parseLatency(change.latency)
  if (change.errorRate !== undefined) changes.errorRate = checkedErrorRate(change.errorRate ?? 0)
  if (change.rateLimit !== undefined)
    changes.rateLimit = change.rateLimit === null ? undefined : parseRateLimit(change.rateLimit)
  return changes
}

/** The changes as a fleet's store keeps them: a `POST /_sandbox/settings` body, `null` for a setting turned off. */
export function keptText(changes: Partial<FaultSettings>): string {
  const { latency, errorRate, rateLimit } = changes
  const body: SettingsRequest = {}
  if ('latency' in changes) body.latency = latency ? { min: latency.min, max: latency.max } : null
  if ('errorRate' in changes) body.error_rate = errorRate ?? null
  if ('rateLimit' in changes)
    body.rate_limit = rateLimit ? { limit: rateLimit.limit, window_ms: rateLimit.windowMs } : null
  return JSON.stringify(body)
}

/**
 * The changes a fleet's store keeps (`keptText`): none for '' (none kept) or for what is not such a body, which only
 * a hand in Redis writes (the sandbox keeps only what it took), so it is read as strictly as a request.
 */
function changesOf(text: string): Partial<FaultSettings> {
  let body: unknown
  try {
    body = text === '' ? {} : JSON.parse(text)
  } catch {
    return {}
  }
  const read = SettingsRequest.safeParse(body)
  return read.success ? parsed(settingsChangeOf(read.data)) : {}
}

function checkedErrorRate(value: number): number {
  const errorRate = readErrorRate(value)
  if (errorRate === undefined) throw new RangeError(`errorRate must be ${ERROR_RATE_RULE}; got ${String(value)}.`)
  return errorRate
}
