import type { Faker } from '@faker-js/faker'
import { createFaker } from '../seed/random.js'
import type { ResolvedOptions } from './options.js'
import { RateLimiter } from './RateLimiter.js'

/** What befalls the next API request, before anything else is looked at. */
export interface NextFaults {
  latencyMs: number
  failure?: 500 | 503
}

/**
 * The faults of one run of requests, from a reset to the next: the latency
 * and simulated failures drawn from the seed, and the rate limit budgets.
 * A reset starts a fresh run, so the same requests in the same order meet
 * the same faults again.
 *
 * @example
 * const faults = new Faults(resolveOptions({ errorRate: 0.1 }))
 * faults.next() // { latencyMs: 0 } or { latencyMs: 0, failure: 503 }
 */
export class Faults {
  /** The rate limit budgets, when the sandbox has a rate limit. */
  readonly rateLimiter: RateLimiter | undefined
  readonly #draws: Faker
  readonly #options: Pick<ResolvedOptions, 'latency' | 'errorRate'>

  constructor({ seed, latency, errorRate, rateLimit }: ResolvedOptions) {
    this.#options = { latency, errorRate }
    this.#draws = createFaker(seed, 'faults')
    this.rateLimiter = rateLimit && new RateLimiter(rateLimit)
  }

  /**
   * The next request's latency and, at the `errorRate`, a 500 or 503.
   * @note Every request draws, whatever it turns out to be (a 404, a 401):
   * that is what makes the failures repeat after a reset.
   */
  next(): NextFaults {
    const { latency, errorRate } = this.#options
    const latencyMs =
      latency === undefined ? 0 : latency.min === latency.max ? latency.min : this.#draws.number.int(latency)
    if (errorRate === 0 || this.#draws.number.float() >= errorRate) return { latencyMs }
    return { latencyMs, failure: this.#draws.datatype.boolean() ? 500 : 503 }
  }
}
