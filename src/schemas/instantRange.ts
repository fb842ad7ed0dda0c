/** Epoch-millisecond bounds of the instants something takes, both included. */
export interface InstantRange {
  readonly min: number
  readonly max: number
}

/**
 * The instants the sandbox clock can show: from 1970 to the year 9000, so that every instant it dates is ISO 8601
 * with a four-digit year, and far from the end of `Date`'s range (year 275760), whatever is added to it.
 */
export const CLOCK_RANGE: InstantRange = { min: Date.UTC(1970, 0, 1), max: Date.UTC(9000, 0, 1) }

/**
 * The instants a world can be seeded at (`now`): the clock's range less a year at each end, for the 90 days of
 * history before it and the appointments booked weeks after it.
 */
export const SEED_RANGE: InstantRange = { min: Date.UTC(1971, 0, 1), max: Date.UTC(8999, 0, 1) }

/**
 * Whether an instant (epoch ms; `undefined`, an instant that did not parse) lies in a range.
 *
 * @example
 * inRange(parseInstant('9999-12-31T23:59:59Z'), SEED_RANGE) // false
 */
export function inRange(ms: number | undefined, { min, max }: InstantRange): ms is number {
  return ms !== undefined && ms >= min && ms <= max
}

/**
 * A range as error messages give it.
 *
 * @example
 * rangeText(SEED_RANGE) // '1971-01-01 to 8999-01-01'
 */
export function rangeText({ min, max }: InstantRange): string {
  return `${new Date(min).toISOString().slice(0, 10)} to ${new Date(max).toISOString().slice(0, 10)}`
}
