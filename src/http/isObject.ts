/**
 * Whether a value is a plain JSON object: an object, not null, not an array.
 *
 * @example
 * isObject(JSON.parse('{"data":[]}')) // true
 * isObject(JSON.parse('[]')) // false
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
