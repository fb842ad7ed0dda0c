export const MINUTE = 60_000
export const HOUR = 60 * MINUTE
export const DAY = 24 * HOUR

/**
 * An instant as the API writes it: ISO 8601 UTC with milliseconds and `Z`.
 *
 * @note The last one written is kept: under load, the answers of a millisecond (each with its `meta.timestamp` and
 * its journal entry's) write the same instant, and a `Date` made and written for each cost 1% of the command's time.
 * @example
 * iso(0) // '1970-01-01T00:00:00.000Z'
 */
export function iso(ms: number): string {
  if (ms !== last.ms) last = { ms, text: new Date(ms).toISOString() }
  return last.text
}

let last = { ms: Number.NaN, text: '' }

/**
 * The later of two instants written by `iso` (they compare as text); `null` is earliest.
 *
 * @example
 * laterOf(null, '2026-11-20T12:00:00.000Z') // '2026-11-20T12:00:00.000Z'
 */
export function laterOf(a: string | null, b: string): string {
  return a !== null && a > b ? a : b
}
