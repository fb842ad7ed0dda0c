import { ApiError } from '../schemas/ApiError.js'

/**
 * The most parameters a query may have: far above what any endpoint takes (a list takes under ten), and low enough
 * that a query of thousands of repeats is refused, and cut in the journal, before it costs more than a plain request.
 */
export const MAX_QUERY_PARAMETERS = 100

/**
 * Where the query string's parameter past `MAX_QUERY_PARAMETERS` starts, or -1 when it has no more. Counted on the
 * text as `URLSearchParams` splits it (on `&`, empty pieces skipped), without parsing it: the parse of 7,000 is what
 * a refusal must not wait for.
 *
 * @example
 * pastTheBound('?limit=2') // -1
 */
export function pastTheBound(search: string): number {
  let count = 0
  let start = search.charCodeAt(0) === QUESTION_MARK ? 1 : 0
  while (start < search.length) {
    let end = search.indexOf('&', start)
    if (end === -1) end = search.length
    if (end > start && ++count > MAX_QUERY_PARAMETERS) return start
    start = end + 1
  }
  return -1
}

const QUESTION_MARK = 63

/** The 400 for a query past the bound. */
export function tooManyParameters(): ApiError {
  return new ApiError(
    'invalid_parameter',
    `The query has more than ${MAX_QUERY_PARAMETERS} parameters; give at most ${MAX_QUERY_PARAMETERS}.`,
  )
}

/**
 * A URL's first `MAX_QUERY_PARAMETERS` query parameters, and whether it had more: the URL's own when it has no more.
 *
 * @example
 * boundedQuery(new URL('http://sandbox/v1/calls?limit=2')) // { params: url.searchParams, truncated: false }
 */
export function boundedQuery(url: URL): { params: URLSearchParams; truncated: boolean } {
  const { search } = url
  const past = pastTheBound(search)
  if (past === -1) return { params: url.searchParams, truncated: false }
  return { params: new URLSearchParams(search.slice(0, past)), truncated: true }
}
