import { bearerToken } from '../http/bearerToken.js'
import { readJsonObject } from '../http/body.js'
import { matchRoute } from '../http/matchRoute.js'
import { parseQuery, parseValues } from '../http/parameters.js'
import { successStatusOf } from '../http/Endpoint.js'
import type { ApiEndpoint as Route } from '../http/Endpoint.js'
import { routes } from '../http/routes.js'
import { ApiError } from '../schemas/ApiError.js'
import type { Scope } from '../schemas/index.js'
import { parseBody } from '../schemas/parseBody.js'
import type { FetchRequest } from '../http/FetchRequest.js'

/** What the contract lets the upstream answer to one request, judged from the request alone. */
export interface Expectation {
  /** The endpoint, when the path and method are one of the API's. */
  route?: Route
  /** Its path and query parameters, parsed, when they are valid. */
  pathValues?: Record<string, unknown>
  query?: Record<string, unknown>
  /** The statuses the contract gives this request; besides them, 429 and 5xx are always the upstream's to give. */
  statuses: number[]
  /** Why, in words: the sandbox's own error message, or "a well-formed request". */
  because: string
  /** A request the sandbox itself finds nothing wrong with: a 400 to it can only be `invalid_cursor`. */
  wellFormed: boolean
}

/** Answers no request decides: a rate limit, an outage, a gateway's. */
export const ALWAYS_ALLOWED = [429, 500, 502, 503, 504]

/**
 * The statuses the contract gives a request, asked of the sandbox's own
 * checks in the contract's order: path (404) → method (405) → key (401) →
 * scope (403) → parameters (400) → body (415/400/413/422). The route table,
 * the parameter schemas and the body schema are the sandbox's: one source.
 *
 * What only the upstream's data decides stays open: whether a key is known
 * (401 always allowed), its scopes unless `scopes` says them (GET /v1/me
 * seen for the key), whether an id exists (404), a cursor is good (400
 * `invalid_cursor`) or a phone is taken (409).
 *
 * @example
 * const { statuses } = await expectationOf(request, '/v1/calls', url, undefined) // [200, 401, 403]
 */
export async function expectationOf(
  request: FetchRequest,
  path: string,
  url: URL,
  body: Uint8Array<ArrayBuffer> | undefined,
  scopes?: readonly Scope[],
): Promise<Expectation> {
  // Route: the path must exist, then offer the method.
  let match: ReturnType<typeof matchRoute<Route>>
  try {
    match = matchRoute(routes, request.method, path)
  } catch (error) {
    return refused(error)
  }
  const { route } = match

  // The key: only its absence or a malformed header is certain; whether the upstream knows it is not.
  if (bearerToken(request.headers.get('authorization')) === null) {
    return { route, statuses: [401], because: 'the request has no Authorization: Bearer <key>', wellFormed: false }
  }
  const unknowable = [401]

  // The scope: certain once GET /v1/me told the key's scopes.
  const { scope } = route.requires
  if (scope !== null) {
    if (scopes === undefined) unknowable.push(403)
    else if (!scopes.includes(scope)) {
      return {
        route,
        statuses: [403, 401],
        because: `the key lacks ${scope} (its scopes, as GET /v1/me said: ${scopes.join(', ') || 'none'})`,
        wellFormed: false,
      }
    }
  }

  // Parameters, then the body: the sandbox's own parsers.
  let pathValues: Record<string, unknown>
  let query: Record<string, unknown>
  try {
    pathValues = parseValues(route.pathParams, match.pathValues)
    query = parseQuery(route, url.searchParams)
    if (route.body) parseBody(route.body, await readJsonObject(asSent(request, url, body)))
  } catch (error) {
    return { ...refused(error, unknowable), route }
  }

  // Well-formed: success, or what only the data decides.
  const statuses = [successStatusOf(route), ...unknowable]
  if (Object.keys(route.pathParams.shape).length > 0) statuses.push(404)
  if (query.cursor !== undefined) statuses.push(400)
  if (route.body) statuses.push(409)
  return { route, pathValues, query, statuses, because: 'a well-formed request', wellFormed: true }
}

function refused(error: unknown, alsoAllowed: number[] = []): Expectation {
  if (!(error instanceof ApiError)) throw error
  return { statuses: [error.status, ...alsoAllowed], because: error.message, wellFormed: false }
}

/** The request's body again, already read, for the body's parser. */
function asSent(request: FetchRequest, url: URL, body: Uint8Array<ArrayBuffer> | undefined): Request {
  const contentType = request.headers.get('content-type')
  return new Request(url, {
    method: request.method,
    headers: contentType === null ? {} : { 'content-type': contentType },
    body: body?.byteLength ? body : undefined,
  })
}
