import { RATE_LIMIT_RULE, type RateLimit, readRateLimit } from '../schemas/settings.js'

export type { RateLimit }

/**
 * Reads a rate limit option: `'60/min'` (also `/s`, `/h`), or `{ limit, windowMs }`.
 *
 * @example
 * parseRateLimit('60/min') // { limit: 60, windowMs: 60_000 }
 */
export function parseRateLimit(value: string | RateLimit): RateLimit {
  const rateLimit = readRateLimit(value)
  if (!rateLimit) throw new RangeError(`rate limit must be ${RATE_LIMIT_RULE}; got ${JSON.stringify(value)}.`)
  return rateLimit
}

/** Where a key stands after a request: what the `X-RateLimit-*` headers say. */
export interface RateLimitState {
  limit: number
  remaining: number
  /** When the window ends, epoch ms of the real time. */
  resetAt: number
  /** Whether this request was over the budget. */
  exceeded: boolean
}

/**
 * Fixed windows per key, on the real time: a window starts with a key's
 * first request and ends `windowMs` later.
 *
 * @note The real time, not the sandbox clock: a stopped clock would keep a
 * window open for ever, and moving the clock is for records, not for budgets.
 * @example
 * const limiter = new RateLimiter({ limit: 60, windowMs: 60_000 })
 * limiter.take('sk_sandbox_all').remaining // 59
 */
export class RateLimiter {
  readonly #windows = new Map<string, { start: number; used: number }>()

  constructor(
    readonly rateLimit: RateLimit,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts one request of `bucket` and says where it stands.
   *
   * @example
   * if (limiter.take(key).exceeded) throw rateLimited()
   */
  take(bucket: string): RateLimitState {
    const now = this.now()
    const { limit, windowMs } = this.rateLimit
    let window = this.#windows.get(bucket)
    if (!window || now >= window.start + windowMs) {
      window = { start: now, used: 0 }
      this.#windows.set(bucket, window)
    }
    window.used++
    return {
      limit,
      remaining: Math.max(0, limit - window.used),
      resetAt: window.start + windowMs,
      exceeded: window.used > limit,
    }
  }
}
