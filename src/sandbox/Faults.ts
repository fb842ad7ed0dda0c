import type { Faker } from '@faker-js/faker'
import { createFaker } from '../seed/random.js'
import { RateLimiter } from './RateLimiter.js'
import type { Settings } from './Settings.js'

/** What befalls the next API request, before anything else is looked at. */
export interface NextFaults {
  latencyMs: number
  failure?: 500 | 503
}

/**
 * The faults of one run of requests, from a reset to the next: the latency
 * and simulated failures drawn from the seed, and the rate limit budgets,
 * under the settings in effect at each request. A reset starts a fresh run,
 * so the same requests in the same order, under the same settings, meet the
 * same faults again.
 *
 * @example
 * const faults = new Faults(1, settings)
 * faults.next() // { latencyMs: 0 } or { latencyMs: 0, failure: 503 }
 */
export class Faults {
  readonly #draws: Faker
  readonly #settings: Settings
  #rateLimiter: RateLimiter | undefined

  constructor(seed: number, settings: Settings) {
    this.#draws = createFaker(seed, 'faults')
    this.#settings = settings
  }

  /**
   * The rate limit budgets, when the sandbox has a rate limit.
   * @note A rate limit changed at run time starts fresh budgets; set again to the same, it keeps them.
   */
  get rateLimiter(): RateLimiter | undefined {
    const wanted = this.#settings.current.rateLimit
    if (!wanted) return undefined
    const limiter = this.#rateLimiter
    if (limiter?.rateLimit.limit === wanted.limit && limiter.rateLimit.windowMs === wanted.windowMs) return limiter
    this.#rateLimiter = new RateLimiter(wanted)
    return this.#rateLimiter
  }

  /**
   * The next request's latency and, at the error rate, a 500 or 503.
   * @note Every request draws, whatever it turns out to be (a 404, a 401):
   * that is what makes the failures repeat after a reset.
   */
  next(): NextFaults {
    const { latency, errorRate } = this.#settings.current
    const latencyMs =
      latency === undefined ? 0 : latency.min === latency.max ? latency.min : this.#draws.number.int(latency)
    if (errorRate === 0 || this.#draws.number.float() >= errorRate) return { latencyMs }
    return { latencyMs, failure: this.#draws.datatype.boolean() ? 500 : 503 }
  }
}
