import type { z } from 'zod'
import { ApiError } from '../schemas/ApiError.js'
import { echoed } from '../text/echoed.js'
import { thousands } from '../text/thousands.js'
import { nearest } from './nearest.js'

/**
 * Query parameters: an unknown name, then a repeated one, then each value in
 * the order the endpoint declares them.
 *
 * @example
 * parseQuery({ method: 'GET', path: '/v1/calls', query: LIST_QUERIES.calls }, url.searchParams) // { limit: 2 }
 */
export function parseQuery(
  route: { method: string; path: string; query: z.ZodObject },
  searchParams: URLSearchParams,
): Record<string, unknown> {
  const names = Object.keys(route.query.shape)
  const counts = new Map<string, number>()
  for (const [name] of searchParams) {
    if (!names.includes(name)) {
      const takes = names.length > 0 ? `it takes ${names.join(', ')}` : 'it takes none'
      const meant = nearest(name, names)
      throw new ApiError(
        'unknown_parameter',
        `${echoed(name) || '(empty name)'} is not a parameter of ${route.method} ${route.path}${meant ? ` (did you mean ${meant}?)` : ''}; ${takes}.`,
        { param: echoed(name), ...(meant && { details: { did_you_mean: meant } }) },
      )
    }
    counts.set(name, (counts.get(name) ?? 0) + 1)
  }
  for (const [name, count] of counts) {
    if (count > 1)
      throw new ApiError('invalid_parameter', `${name} is given ${thousands(count)} times; give it once.`, {
        param: name,
      })
  }
  return parseValues(route.query, Object.fromEntries(searchParams))
}

/**
 * Values of present parameters, each parsed by its own schema; the first bad one is a 400 naming it.
 *
 * @example
 * parseValues(recordPath('calls'), { call_id: '3F2B8C1E-9D4A-4E7B-8C2F-1A2B3C4D5E6F' }) // lower-cased
 */
export function parseValues(schema: z.ZodObject, raw: Record<string, string>): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  for (const [name, parameter] of Object.entries(schema.shape)) {
    if (raw[name] === undefined) continue
    const result = (parameter as z.ZodType).safeParse(raw[name])
    if (!result.success) {
      throw new ApiError('invalid_parameter', result.error.issues[0]?.message ?? `${name} is invalid.`, { param: name })
    }
    values[name] = result.data
  }
  return values
}
