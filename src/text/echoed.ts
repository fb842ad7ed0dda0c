import { thousands } from './thousands.js'

/** How much of a sent value an error message repeats. */
export const ECHO_LIMIT = 200

/**
 * A value the client sent, as an error message repeats it: whole up to
 * `ECHO_LIMIT` characters, else its start, an ellipsis and its length.
 *
 * @note An error must not grow with what was sent: a 60,000-character path
 * would otherwise come back in the 404's message, and again in its journal entry.
 *
 * @example
 * echoed('a'.repeat(60_000)) // 'aaa…a… (60,000 characters)', 200 of them shown
 */
export function echoed(value: string): string {
  if (value.length <= ECHO_LIMIT) return value
  // Not half of a surrogate pair: the message stays well-formed UTF-16.
  const end = /[\ud800-\udbff]/.test(value[ECHO_LIMIT - 1]!) ? ECHO_LIMIT - 1 : ECHO_LIMIT
  return `${value.slice(0, end)}… (${thousands(value.length)} characters)`
}
