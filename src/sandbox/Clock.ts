import { iso } from '../seed/iso.js'
import { CLOCK_RANGE, inRange, rangeText } from '../schemas/instantRange.js'

/**
 * The sandbox's notion of "now": new records, `meta.timestamp` and the
 * running time of live calls all read it.
 *
 * Created with a fixed instant it stands still until it is set or advanced,
 * so a test sees the same answers every run; created without one it follows
 * the real time.
 *
 * @example
 * const clock = new Clock(Date.parse('2026-11-20T12:00:00Z'))
 * clock.advance(60_000)
 * clock.now() // 2026-11-20T12:01:00.000Z in ms
 */
export class Clock {
  readonly #start: number | undefined
  #base = 0
  #realBase = 0

  /**
   * @param start The fixed instant (epoch ms); without it the clock runs on the real time.
   * @param onSet Called after every set, advance and reset.
   */
  constructor(
    start?: number,
    private readonly onSet: () => void = () => undefined,
  ) {
    this.#start = start
    this.reset()
  }

  /** Back to the start: the fixed instant, or the real time. */
  reset(): void {
    this.set(this.#start ?? Date.now())
  }

  /** Whether it stands still until set or advanced (else it follows the real time). */
  get fixed(): boolean {
    return this.#start !== undefined
  }

  /** Current sandbox time in epoch milliseconds. */
  now(): number {
    return this.#start === undefined ? this.#base + (Date.now() - this.#realBase) : this.#base
  }

  /** Current sandbox time as an ISO 8601 UTC string. */
  iso(): string {
    return iso(this.now())
  }

  /**
   * Moves the clock to an instant (epoch ms).
   *
   * @example
   * clock.set(Date.parse('2026-12-24T08:00:00Z'))
   */
  set(ms: number): void {
    if (!Number.isFinite(ms))
      throw new TypeError(`The clock takes epoch milliseconds, such as Date.parse('2026-12-24T08:00:00Z'); got ${ms}.`)
    if (!inRange(ms, CLOCK_RANGE)) {
      throw new RangeError(
        `The clock shows instants from ${rangeText(CLOCK_RANGE)}; got ${ms} (${Number.isFinite(new Date(ms).getTime()) ? new Date(ms).toISOString() : 'out of range'}).`,
      )
    }
    this.#base = ms
    this.#realBase = Date.now()
    this.onSet()
  }

  /**
   * Moves the clock on (or back, with a negative number) by `ms` milliseconds.
   *
   * @example
   * clock.advance(15 * 60_000)
   */
  advance(ms: number): void {
    if (!Number.isFinite(ms)) throw new TypeError(`advance() takes milliseconds; got ${ms}.`)
    this.set(this.now() + ms)
  }
}
