import type { RateLimitState } from '../sandbox/RateLimiter.js'
import type { ApiKey } from '../sandbox/KeyRing.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import { ApiError } from '../schemas/ApiError.js'
import type { JournalEntry } from '../schemas/index.js'
import { bearerToken } from './bearerToken.js'
import { matchRoute } from './matchRoute.js'
import { parseQuery, parseValues } from './parameters.js'
import { forcedError, parsePrefer, successStatusOf, type Preferences } from './prefer.js'
import { newRequestId } from './requestId.js'
import { failedReply, respond, type Reply } from './respond.js'
import type { Route } from './Route.js'
import { routes } from './routes.js'

/**
 * Answers one API request (a path under `/v1/`, below the base URL),
 * along the contract's order of checks, one step a comment below:
 *
 * faults drawn → rate limit token taken → latency → path (404) → method
 * (405) → key (401) → rate limit (429) → `Prefer` (400, then a forced
 * status) → simulated failure → scope (403) → parameters (400) → the
 * endpoint's record (404) and body (415/400/413/422/409) → envelope →
 * journal and usage report.
 *
 * @note Faults come first, before anything about the request is known:
 * every request draws its latency and failure from the seed's stream, a 404
 * or a 401 as much as a good one, so the same requests in the same order
 * meet the same failures after every reset. A rate limit token is taken for
 * the same reason: a request the sandbox refuses still counts against its key.
 *
 * Every early return is an error in the same envelope.
 *
 * @example
 * const response = await answerApi(sandbox, request, '/v1/me', new URL(request.url))
 */
export async function answerApi(sandbox: Sandbox, request: Request, path: string, url: URL): Promise<Reply> {
  const started = performance.now()
  const requestId = newRequestId()
  const authorization = request.headers.get('authorization')
  const token = bearerToken(authorization)
  // The key the request carries, when it is one: its rate limit bucket and its line in the usage report.
  const presented = token === null ? undefined : sandbox.apiKey(token)
  let route: Route | undefined
  let preferences: Preferences = { applied: [] }
  let rateLimit: RateLimitState | undefined
  let response: Reply
  try {
    await sandbox.ready
    // Faults of the sandbox's own, drawn before anything else (see the note above), and the rate limit token.
    const faults = sandbox.nextFaults()
    rateLimit = sandbox.rateLimiter?.take(presented?.key ?? ANONYMOUS)
    await sleep(faults.latencyMs)

    // Route: the path must exist, then offer the method.
    const match = matchRoute(routes, request.method, path)
    route = match.route

    // Authenticate the key; a key over its rate limit stops here.
    const apiKey = authenticate(sandbox, authorization, token, presented)
    if (rateLimit?.exceeded) throw rateLimited(rateLimit)

    // Faults the request asked for (Prefer), then the sandbox's simulated failures.
    preferences = parsePrefer(request.headers.get('prefer'), route)
    await sleep(preferences.delay ?? 0)
    if (preferences.code !== undefined && preferences.code !== successStatusOf(route))
      throw forcedError(preferences.code, { sandbox, route, apiKey })
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
    response = await failedReply(sandbox, requestId, request, error)
  }
  if (rateLimit) setRateLimitHeaders(response.headers, rateLimit)
  if (preferences.applied.length > 0) response.headers.set('Preference-Applied', preferences.applied.join(', '))

  sandbox.journal.record(
    journalEntry(sandbox, { requestId, request, path, url, status: response.status, key: token, started }),
  )
  // The usage report counts every request of a valid key, also those that stopped before the key check (404, 405).
  if (presented) {
    // Only the endpoint's own parameters: a name it does not take (a 400) would make the report grow without end.
    const parameters = route
      ? [...url.searchParams.keys()].filter((name) => Object.hasOwn(route!.query.shape, name))
      : []
    sandbox.usage.record(
      { key: presented.key, organization_id: presented.organization.organization_id, scopes: presented.scopes },
      route,
      parameters,
      response.status,
    )
  }
  return response
}

/** The rate limit bucket of requests without a valid key. */
const ANONYMOUS = '(no valid key)'

/**
 * Whether a path (below the base URL) is the API's.
 *
 * @example
 * isApiPath('/v1/calls') // true
 */
export function isApiPath(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/')
}

/** The key the request presented (`token`, looked up once as `presented`), or the 401 that says what is wrong. */
function authenticate(
  sandbox: Sandbox,
  authorization: string | null,
  token: string | null,
  presented: ApiKey | undefined,
): ApiKey {
  if (presented) return presented
  const hint = () =>
    `Send Authorization: Bearer <key>, with a sandbox key such as ${sandbox.apiKeys[0]?.key ?? 'sk_sandbox_all'}.`
  if (authorization === null || authorization.trim() === '')
    throw new ApiError('unauthorized', `No Authorization header. ${hint()}`)
  if (token === null) throw new ApiError('unauthorized', `The Authorization header is not "Bearer <key>". ${hint()}`)
  throw new ApiError(
    'unauthorized',
    `Unknown API key. The sandbox keys are: ${sandbox.apiKeys.map(({ key }) => key).join(', ')}.`,
  )
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
  return new ApiError(
    'rate_limited',
    `This key made more than ${limit} requests in its window; retry in ${seconds} s.`,
    {
      headers: { 'Retry-After': String(seconds) },
    },
  )
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

/**
 * The journal's entry for a request answered at `path` (the API's, or in
 * proxy mode the upstream's): how long it took since `started`, at the
 * sandbox's clock.
 *
 * @example
 * sandbox.journal.record(journalEntry(sandbox, { requestId, request, path, url, status: 200, key: token, started }))
 */
export function journalEntry(
  sandbox: Sandbox,
  {
    requestId,
    request,
    path,
    url,
    status,
    key,
    started,
  }: {
    requestId: string
    request: Request
    path: string
    url: URL
    status: number
    key: string | null
    started: number
  },
): JournalEntry {
  return {
    request_id: requestId,
    method: request.method,
    path,
    query: queryOf(url.searchParams),
    status,
    key,
    duration_ms: Math.round((performance.now() - started) * 100) / 100,
    timestamp: sandbox.clock.iso(),
  }
}

/** The query parameters as the journal keeps them: a repeated one with an array of its values. */
function queryOf(searchParams: URLSearchParams): Record<string, string | string[]> {
  // No prototype: a parameter named __proto__ is kept like any other.
  const query: Record<string, string | string[]> = Object.create(null)
  for (const [name, value] of searchParams) {
    const earlier = query[name]
    query[name] = earlier === undefined ? value : [...(Array.isArray(earlier) ? earlier : [earlier]), value]
  }
  return query
}
