import type { KeysetPosition } from '../data/KeysetIndex.js'
import { hash32 } from '../seed/random.js'
import { ApiError } from '../schemas/ApiError.js'
import { filterNamesOf, KINDS } from '../schemas/registry.js'

/** What a cursor is bound to: it is valid only for the same three. */
export interface CursorBinding {
  /** The list, e.g. `calls`. */
  endpoint: string
  /** The API key that listed it. */
  key: string
  /** The filters of the list in a canonical form, `since` included. */
  filters: string
}

type Payload = [version: 1, t: number, id: string, endpoint: string, key: string, filters: string, check: string]

/**
 * An opaque, url-safe cursor for the position after `position`: keyset-based,
 * so records created between two pages neither repeat nor shift the walk.
 * A checksum keyed by the sandbox's secret makes any edit an invalid cursor.
 *
 * @example
 * const next_cursor = encodeCursor(positionOf(lastRecord), binding, secret)
 */
export function encodeCursor(position: KeysetPosition, binding: CursorBinding, secret: string): string {
  const body = [1, position.t, position.id, binding.endpoint, short(binding.key), short(binding.filters)] as const
  return toBase64Url(JSON.stringify([...body, checksum(body, secret)]))
}

/** Reads a cursor back, or throws 400 `invalid_cursor` saying why it does not fit. */
export function decodeCursor(cursor: string, binding: CursorBinding, secret: string): KeysetPosition {
  const payload = parse(cursor)
  if (!payload || checksum(payload.slice(0, 6), secret) !== payload[6]) {
    throw invalid('The cursor is malformed. Pass the next_cursor of a previous page unchanged.')
  }
  const [, t, id, endpoint, key, filters] = payload
  if (endpoint !== binding.endpoint) {
    throw invalid(`The cursor was issued for GET /v1/${endpoint}, not for GET /v1/${binding.endpoint}.`)
  }
  if (key !== short(binding.key)) throw invalid('The cursor was issued for another API key.')
  if (filters !== short(binding.filters)) {
    const kind = KINDS.find((one) => one === binding.endpoint)
    const names = kind === undefined ? 'filters and since' : filterNamesOf(kind)
    throw invalid(
      `The cursor was issued for other filters. Send the same ${names} with every page; only limit may change.`,
    )
  }
  return { t, id }
}

function parse(cursor: string): Payload | undefined {
  if (!/^[A-Za-z0-9_-]{1,2048}$/.test(cursor)) return undefined
  try {
    const text = fromBase64Url(cursor)
    const value: unknown = JSON.parse(text)
    // Only the one spelling encodeCursor writes counts: base64 has spare bits
    // in its last character, and JSON allows white space around the array.
    if (toBase64Url(JSON.stringify(value)) !== cursor) return undefined
    if (
      Array.isArray(value) &&
      value.length === 7 &&
      value[0] === 1 &&
      Number.isSafeInteger(value[1]) &&
      value.slice(2).every((part) => typeof part === 'string')
    ) {
      return value as Payload
    }
  } catch {
    // Not base64 of JSON: malformed, as below.
  }
  return undefined
}

function invalid(message: string): ApiError {
  return new ApiError('invalid_cursor', message, { param: 'cursor' })
}

function checksum(body: readonly unknown[], secret: string): string {
  return short(`${secret}\n${JSON.stringify(body)}`)
}

function short(text: string): string {
  return hash32(text).toString(36)
}

function toBase64Url(text: string): string {
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

function fromBase64Url(text: string): string {
  return atob(text.replace(/-/g, '+').replace(/_/g, '/'))
}
