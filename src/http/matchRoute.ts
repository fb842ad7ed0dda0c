import { LruMap } from '../data/LruMap.js'
import { ApiError } from '../schemas/ApiError.js'
import { detached } from '../text/detached.js'
import { ECHO_LIMIT, echoed } from '../text/echoed.js'
import { nearest } from './nearest.js'

/** What route matching needs of a route: its method and its path pattern, like `/v1/calls/:call_id`. */
export interface Matchable {
  method: string
  path: string
}

/**
 * The route for a path and method: 404 when no route has the path, 405
 * (with `Allow`) when none of those has the method.
 *
 * @example
 * const { route, pathValues } = matchRoute(routes, 'GET', '/v1/calls/3f2b8c1e-9d4a-4e7b-8c2f-1a2b3c4d5e6f')
 */
export function matchRoute<R extends Matchable>(
  routes: readonly R[],
  method: string,
  path: string,
  /** What a 404 lists as the endpoints there are (default `routes`): a plane's neighbours under its prefix too. */
  listed: readonly Matchable[] = routes,
): Match<R> {
  if (path.length > KEPT_PATH_LENGTH) return findRoute(routes, method, path, listed)
  let kept = keptMatches.get(routes)
  if (!kept) {
    kept = new LruMap<string, Match<Matchable>>(KEPT_MATCHES)
    keptMatches.set(routes, kept)
  }
  const key = `${method} ${path}`
  let match = kept.get(key) as Match<R> | undefined
  if (!match) {
    const found = findRoute(routes, method, path, listed)
    // The path's values are slices of the URL's href: kept, they would keep it.
    const pathValues: Record<string, string> = {}
    for (const [name, value] of Object.entries(found.pathValues)) pathValues[name] = detached(value)
    match = { route: found.route, pathValues: Object.freeze(pathValues) }
    kept.set(detached(key), match)
  }
  return match
}

type Match<R> = { route: R; pathValues: Readonly<Record<string, string>> }

/**
 * The routes found for the paths last asked of each list of routes (the least recently used goes first): a client
 * sends the same few paths again and again. Only a route found is kept (a 404 or a 405 is thrown anew), for a path no
 * longer than a record's, and a bounded number of them.
 */
const keptMatches = new WeakMap<readonly Matchable[], LruMap<string, Match<Matchable>>>()
const KEPT_MATCHES = 1024
const KEPT_PATH_LENGTH = 256

function findRoute<R extends Matchable>(
  routes: readonly R[],
  method: string,
  path: string,
  listed: readonly Matchable[],
): { route: R; pathValues: Record<string, string> } {
  const segments = path.split('/')
  const matches = routes.flatMap((route) => {
    const pathValues = matchPath(route.path, segments)
    return pathValues ? [{ route, pathValues }] : []
  })
  if (matches.length === 0) {
    const endpoints = listed.map((route) => `${route.method} ${route.path}`).join(', ')
    // The near miss: the endpoint path nearest to the one sent, its parameters filled from it where they line up.
    const meant = nearest(path, new Set(routes.map((route) => filledIn(route.path, segments))), 2)
    throw new ApiError(
      'not_found',
      `No endpoint at ${echoed(path)}.${meant ? ` Did you mean ${meant}?` : ''} The endpoints are: ${endpoints}.`,
      meant ? { details: { did_you_mean: meant } } : {},
    )
  }
  const match = matches.find(({ route }) => route.method === method)
  if (!match) {
    const allowed = methodsOf(matches.map(({ route }) => route)).join(', ')
    throw new ApiError('method_not_allowed', `${echoed(path)} does not take ${method}; it takes ${allowed}.`, {
      headers: { Allow: allowed },
    })
  }
  return match
}

/**
 * A route's path with its parameters taken from the path sent, where the two have as many segments; a segment longer
 * than an error may echo stays the parameter's name, so that a suggestion is as short as the route.
 */
function filledIn(pattern: string, segments: string[]): string {
  const parts = pattern.split('/')
  if (parts.length !== segments.length) return pattern
  const fill = (part: string, segment: string) => (segment.length <= ECHO_LIMIT ? segment : part)
  return parts.map((part, i) => (part.startsWith(':') ? fill(part, segments[i]!) : part)).join('/')
}

/**
 * The methods the routes take at a path (what a 405's `Allow` and a CORS preflight name), in the routes' order.
 *
 * @example
 * methodsAt(routes, '/v1/contacts') // ['GET', 'POST']
 */
export function methodsAt(routes: readonly Matchable[], path: string): string[] {
  const segments = path.split('/')
  return methodsOf(routes.filter((route) => matchPath(route.path, segments)))
}

/** The routes' methods, each once, in their order. */
function methodsOf(routes: readonly Matchable[]): string[] {
  return [...new Set(routes.map((route) => route.method))]
}

function matchPath(pattern: string, segments: string[]): Record<string, string> | undefined {
  const parts = partsOf(pattern)
  if (parts.length !== segments.length) return undefined
  const values: Record<string, string> = {}
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!
    const segment = segments[i]!
    if (part.startsWith(':')) {
      if (segment === '') return undefined
      values[part.slice(1)] = safeDecode(segment)
    } else if (part !== segment) {
      return undefined
    }
  }
  return values
}

/**
 * Each route pattern's segments, split once: every request is matched against every route of its plane. The patterns
 * are the endpoints' own, never a client's; bounded all the same, past which a pattern is split each time.
 */
const patternParts = new Map<string, readonly string[]>()
const KEPT_PATTERNS = 1024

function partsOf(pattern: string): readonly string[] {
  let parts = patternParts.get(pattern)
  if (!parts) {
    parts = pattern.split('/')
    if (patternParts.size < KEPT_PATTERNS) patternParts.set(pattern, parts)
  }
  return parts
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}
