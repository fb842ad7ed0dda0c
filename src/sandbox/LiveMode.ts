import type { Faker } from '@faker-js/faker'
import { createFaker } from '../seed/random.js'
import type { Clock } from './Clock.js'
import type { Endings } from './Endings.js'
import type { AddedCall, Factories } from './Factories.js'
import type { KeyRing } from './KeyRing.js'
import type { ResolvedOptions } from './options.js'
import type { WriteQueue } from './WriteQueue.js'

/**
 * Live mode: a caller rings every interval, and the call is in progress (or
 * being forwarded); it ends, and its lead or appointment appears, as the
 * clock goes on. Arrivals draw from the seed, so the same seed gives the
 * same callers in the same order; a reset starts them over.
 *
 * @example
 * const live = new LiveMode(() => options, { queue, clock, keys: () => keys, endings, factories })
 * live.start()
 */
export class LiveMode {
  #arrivals: Faker
  #timer: ReturnType<typeof setInterval> | undefined

  constructor(
    private readonly options: () => ResolvedOptions,
    private readonly services: {
      queue: WriteQueue
      clock: Clock
      keys: () => KeyRing
      endings: Endings
      factories: Factories
      /** Whether this server does the world's timed work now (always, but with a store several servers share). */
      holdsLease: (ttlMs: number) => Promise<boolean>
    },
  ) {
    this.#arrivals = createFaker(options().seed, 'live')
  }

  /** Starts the arrivals when the options ask for live mode. */
  start(): void {
    const { live } = this.options()
    if (live === undefined || this.#timer !== undefined) return
    this.#timer = setInterval(async () => {
      try {
        // With a store several servers share, one server rings a world's calls: the one that holds its lease.
        if (await this.services.holdsLease(2 * live)) await this.tick()
      } catch (error) {
        console.error('[call-sandbox] a live call failed:', error)
      }
    }, live)
    // @note Node: a live sandbox alone does not keep a test run or a script from ending.
    ;(this.#timer as { unref?: () => void }).unref?.()
  }

  /** Stops the arrivals. */
  stop(): void {
    clearInterval(this.#timer)
    this.#timer = undefined
  }

  /** The same callers again, from the first (a reset). */
  restart(): void {
    this.#arrivals = createFaker(this.options().seed, 'live')
  }

  /**
   * One arrival. A fixed clock moves on by the live interval first, so a
   * live sandbox with a fixed clock runs in steps, the same every time.
   * Arrivals are writes: they wait their turn, so ticks never overlap.
   */
  tick(): Promise<AddedCall> {
    const { queue, clock, keys, endings, factories } = this.services
    return queue.write(async (write) => {
      const { live, fixedClock } = this.options()
      if (fixedClock && live !== undefined) clock.advance(live)
      await endings.apply(write.db, clock.now())
      const status = this.#arrivals.datatype.boolean(0.8) ? 'in-progress' : 'forwarding'
      const organizations = keys().organizations.filter((organization) => organization.calls > 0)
      const organization =
        organizations.length > 0 ? this.#arrivals.helpers.arrayElement(organizations) : keys().organization()
      return factories.call(write, { status, organization_id: organization.organization_id })
    })
  }
}
