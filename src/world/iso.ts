/**
 * An instant as the API writes it: ISO 8601 UTC with milliseconds and `Z`.
 *
 * @example
 * iso(0) // '1970-01-01T00:00:00.000Z'
 */
export function iso(ms: number): string {
  return new Date(ms).toISOString()
}
