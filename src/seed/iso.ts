export const MINUTE = 60_000
export const HOUR = 60 * MINUTE
export const DAY = 24 * HOUR

/**
 * An instant as the API writes it: ISO 8601 UTC with milliseconds and `Z`.
 *
 * @example
 * iso(0) // '1970-01-01T00:00:00.000Z'
 */
export function iso(ms: number): string {
  return new Date(ms).toISOString()
}

/**
 * The later of two instants written by `iso` (they compare as text); `null` is earliest.
 *
 * @example
 * laterOf(null, '2026-11-20T12:00:00.000Z') // '2026-11-20T12:00:00.000Z'
 */
export function laterOf(a: string | null, b: string): string {
  return a !== null && a > b ? a : b
}
