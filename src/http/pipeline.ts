import { answerControl } from '../control/answerControl.js'
import { CONTROL_PREFIX, DOCUMENT_PATH } from '../control/paths.js'
import type { RateLimitState } from '../sandbox/RateLimiter.js'
import type { ApiKey, Sandbox } from '../sandbox/Sandbox.js'
import { ApiError } from './ApiError.js'
import { bearerToken } from './bearerToken.js'
import { matchRoute } from './matchRoute.js'
import { parseQuery, parseValues } from './parameters.js'
import { forcedError, parsePrefer, successStatusOf, type Preferences } from './prefer.js'
import { newRequestId } from './requestId.js'
import { errorResponse, failedAnswer, respond, toApiError } from './respond.js'
import type { Route } from './Route.js'
import { routes } from './routes.js'

/**
 * Answers one request to the sandbox: the API under `/v1/`, the control
 * plane under `/_sandbox/`, and the OpenAPI document. Returns `undefined`
 * for any other path, so that MSW lets it pass.
 *
 * An API request goes along the contract's order of checks:
 * path (404) → method (405) → auth (401) → rate limit (429) → faults asked
 * for → scope (403) → parameters (400) → the endpoint's record (404) and
 * body (415/400/413/422/409) → envelope. Every early return is an error in
 * the same envelope, and every answer goes into the journal.
 *
 * @example
 * const response = await answer(sandbox, new Request('https://api.example.com/v1/me', {
 *   headers: { Authorization: 'Bearer sk_sandbox_all' },
 * }))
 */
export async function answer(sandbox: Sandbox, request: Request): Promise<Response | undefined> {
  const url = new URL(request.url)
  const path = sandboxPath(sandbox, url)
  if (path === undefined) return undefined
  if (!isApiPath(path)) return answerControl(sandbox, request, path, url)

  const started = performance.now()
  const requestId = newRequestId()
  const token = bearerToken(request.headers.get('authorization'))
  // The key the request carries, when it is one: its rate limit bucket and its line in the usage report.
  const presented = token === null ? undefined : sandbox.apiKey(token)
  let route: Route | undefined
  let preferences: Preferences = { applied: [] }
  let rateLimit: RateLimitState | undefined
  let response: Response
  try {
    await sandbox.ready
    // Faults of the sandbox's own: latency and a share of failures, drawn for every request alike.
    const faults = sandbox.nextFaults()
    rateLimit = sandbox.rateLimiter?.take(presented?.key ?? ANONYMOUS)
    await sleep(faults.latencyMs)

    // Route: the path must exist, then offer the method.
    const match = matchRoute(routes, request.method, path)
    route = match.route

    // Authenticate the key; a key over its rate limit stops here.
    const apiKey = authenticate(sandbox, request.headers.get('authorization'))
    if (rateLimit?.exceeded) throw rateLimited(rateLimit)

    // Faults the request asked for (Prefer), then the sandbox's simulated failures.
    preferences = parsePrefer(request.headers.get('prefer'), route)
    await sleep(preferences.delay ?? 0)
    if (preferences.code !== undefined && preferences.code !== successStatusOf(route)) throw forcedError(preferences.code, { sandbox, route, apiKey })
    if (faults.failure) throw forcedError(faults.failure, { sandbox, route, apiKey })

    // The endpoint's scope.
    authorize(apiKey, route)

    // Parameters: path values, then the query string.
    const pathParams = parseValues(route.pathParams, match.pathValues)
    const query = parseQuery(route, url.searchParams)

    // The endpoint: its record or body, then its data, as of one instant: what is due by
    // meta.timestamp has come, so a client polling with since=meta.timestamp misses nothing.
    const now = sandbox.clock.now()
    await sandbox.settle(now)
    const result = await route.answer({ sandbox, apiKey, path: pathParams, query, request })
    response = respond(sandbox, requestId, result.status ?? successStatusOf(route), result.body, result.headers, now)
  } catch (error) {
    response = await failedAnswer(sandbox, requestId, request, error)
  }
  if (rateLimit) setRateLimitHeaders(response.headers, rateLimit)
  if (preferences.applied.length > 0) response.headers.set('Preference-Applied', preferences.applied.join(', '))

  sandbox.journal.record({
    request_id: requestId,
    method: request.method,
    path,
    query: queryOf(url.searchParams),
    status: response.status,
    key: token,
    duration_ms: Math.round((performance.now() - started) * 100) / 100,
    timestamp: sandbox.clock.iso(),
  })
  // The usage report counts every request of a valid key, also those that stopped before the key check (404, 405).
  if (presented) {
    // Only the endpoint's own parameters: a name it does not take (a 400) would make the report grow without end.
    const parameters = route ? [...url.searchParams.keys()].filter((name) => name in route!.query.shape) : []
    sandbox.usage.record({ key: presented.key, organization_id: presented.organization.organization_id, scopes: presented.scopes }, route, parameters, response.status)
  }
  return response
}

/** The rate limit bucket of requests without a valid key. */
const ANONYMOUS = '(no valid key)'

/**
 * The request's path below the sandbox's base URL, when the sandbox answers
 * it (the API, `/_sandbox/`, `/openapi.json`); still percent-encoded. The
 * MSW handler matches with it.
 *
 * @example
 * sandboxPath(sandbox, new URL('https://api.example.com/v1/calls')) // '/v1/calls'
 */
export function sandboxPath(sandbox: Sandbox, url: URL): string | undefined {
  const { baseUrl } = sandbox.options
  let path = url.pathname
  if (baseUrl !== undefined) {
    // baseUrl is an origin and a path without its trailing slash (see resolveOptions).
    const href = url.origin + url.pathname
    if (!href.startsWith(`${baseUrl}/`)) return undefined
    path = href.slice(baseUrl.length)
  }
  return isSandboxPath(path) ? path : undefined
}

/**
 * Whether the sandbox answers a path (below its base URL): the API, the
 * control plane, the OpenAPI document.
 *
 * @example
 * isSandboxPath('/_sandbox/reset') // true
 */
export function isSandboxPath(path: string): boolean {
  return isApiPath(path) || path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`) || path === DOCUMENT_PATH
}

function isApiPath(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/')
}

function authenticate(sandbox: Sandbox, authorization: string | null): ApiKey {
  const hint = () => `Send Authorization: Bearer <key>, with a sandbox key such as ${sandbox.apiKeys[0]?.key ?? 'sk_sandbox_all'}.`
  if (authorization === null || authorization.trim() === '') throw new ApiError('unauthorized', `No Authorization header. ${hint()}`)
  const token = bearerToken(authorization)
  if (token === null) throw new ApiError('unauthorized', `The Authorization header is not "Bearer <key>". ${hint()}`)
  const apiKey = sandbox.apiKey(token)
  if (!apiKey) throw new ApiError('unauthorized', `Unknown API key. The sandbox keys are: ${sandbox.apiKeys.map(({ key }) => key).join(', ')}.`)
  return apiKey
}

function authorize(apiKey: ApiKey, route: Route): void {
  if (route.scope === null || apiKey.scopes.includes(route.scope)) return
  throw new ApiError(
    'insufficient_scope',
    `This key lacks the ${route.scope} scope, which ${route.method} ${route.path} needs. Its scopes: ${apiKey.scopes.join(', ') || 'none'}.`,
    { details: { required_scope: route.scope, key_scopes: [...apiKey.scopes] } },
  )
}

function rateLimited({ limit, resetAt }: RateLimitState): ApiError {
  const seconds = secondsUntil(resetAt)
  return new ApiError('rate_limited', `This key made more than ${limit} requests in its window; retry in ${seconds} s.`, {
    headers: { 'Retry-After': String(seconds) },
  })
}

function setRateLimitHeaders(headers: Headers, { limit, remaining, resetAt }: RateLimitState): void {
  headers.set('X-RateLimit-Limit', String(limit))
  headers.set('X-RateLimit-Remaining', String(remaining))
  // Epoch seconds, as GitHub's and most APIs' X-RateLimit-Reset.
  headers.set('X-RateLimit-Reset', String(Math.ceil(resetAt / 1_000)))
}

function secondsUntil(epochMs: number): number {
  return Math.max(1, Math.ceil((epochMs - Date.now()) / 1_000))
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve()
}

function queryOf(searchParams: URLSearchParams): Record<string, string | string[]> {
  // No prototype: a parameter named __proto__ is kept like any other.
  const query: Record<string, string | string[]> = Object.create(null)
  for (const [name, value] of searchParams) {
    const earlier = query[name]
    query[name] = earlier === undefined ? value : [...(Array.isArray(earlier) ? earlier : [earlier]), value]
  }
  return query
}

/**
 * The answer to a method that never reaches the handlers (fetch cannot carry
 * TRACE, TRACK or CONNECT): 404 for a path the API does not have, else 405.
 */
export function methodOutsideFetch(sandbox: Sandbox, method: string, path: string): Response {
  try {
    matchRoute(routes, method, path)
  } catch (error) {
    return errorResponse(sandbox, newRequestId(), toApiError(error))
  }
  // No route takes these methods, so the route check always throws above.
  throw new Error(`A route takes ${method}, which fetch cannot carry.`)
}
