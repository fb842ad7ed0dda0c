import type { z } from 'zod'
import { LruMap } from '../data/LruMap.js'
import { ApiError } from '../schemas/ApiError.js'
import { detached } from '../text/detached.js'
import { echoed } from '../text/echoed.js'
import { thousands } from '../text/thousands.js'
import { nearest } from './nearest.js'
import { MAX_QUERY_PARAMETERS, pastTheBound, tooManyParameters } from './queryBound.js'

/**
 * Query parameters: more than `MAX_QUERY_PARAMETERS`, then an unknown name, then a repeated one, then each value in
 * the order the endpoint declares them.
 *
 * @example
 * parseQuery({ method: 'GET', path: '/v1/calls', query: LIST_QUERIES.calls }, url.searchParams) // { limit: 2 }
 */
export function parseQuery(
  route: { method: string; path: string; query: z.ZodObject },
  searchParams: URLSearchParams,
): Record<string, unknown> {
  if (searchParams.size > MAX_QUERY_PARAMETERS) throw tooManyParameters()
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
 * `parseQuery` of a URL's query, kept per query schema for the same query string: a client polling a list sends the
 * same few query strings again and again, and the parse of each (its names, then every value through its schema) is
 * the same every time. Only what parsed is kept (an error is thrown anew), frozen, as the parse of each value is a
 * pure function of its text; the strings kept are bounded in length and in number.
 *
 * @example
 * parseUrlQuery(listCalls, new URL('http://sandbox/v1/calls?limit=2')) // { limit: 2 }, the same object the next time
 */
export function parseUrlQuery(
  route: { method: string; path: string; query: z.ZodObject },
  url: URL,
): Readonly<Record<string, unknown>> {
  const { search } = url
  // Counted on the text before `url.searchParams` parses it all.
  if (pastTheBound(search) !== -1) throw tooManyParameters()
  if (search.length > KEPT_QUERY_LENGTH) return parseQuery(route, url.searchParams)
  let kept = keptQueries.get(route.query)
  if (!kept) {
    kept = new LruMap<string, Readonly<Record<string, unknown>>>(KEPT_QUERIES)
    keptQueries.set(route.query, kept)
  }
  let values = kept.get(search)
  if (values === undefined) {
    // The query string and its values are slices of the URL's href: kept, they would keep it.
    const parsed = parseQuery(route, url.searchParams)
    for (const [name, value] of Object.entries(parsed)) if (typeof value === 'string') parsed[name] = detached(value)
    values = Object.freeze(parsed)
    kept.set(detached(search), values)
  }
  return values
}

/** The query strings kept per query schema (the least recently used goes first), and the longest kept. */
const KEPT_QUERIES = 256
const KEPT_QUERY_LENGTH = 512
const keptQueries = new WeakMap<z.ZodObject, LruMap<string, Readonly<Record<string, unknown>>>>()

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
