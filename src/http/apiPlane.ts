import { publicKeysOf, shownCredential, shownHeader, shownParameter } from '../sandbox/credentials.js'
import { keptBody, keptHeaders } from '../sandbox/Journal.js'
import { requestScrubber, type Scrubber } from '../sandbox/Scrubber.js'
import type { ApiKey } from '../sandbox/KeyRing.js'
import type { RateLimitState } from '../sandbox/RateLimiter.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import { ApiError } from '../schemas/ApiError.js'
import type { JournalEntry, JournalMessage } from '../schemas/index.js'
import { bearerToken } from './bearerToken.js'
import { bodyRead } from './body.js'
import { type ApiEndpoint, type RequestContext, scopeOf, successStatusOf } from './Endpoint.js'
import { isApiPath } from './paths.js'
import type { Plane, PlaneSteps } from './pipeline.js'
import { forcedError, type Preferences, parsePrefer } from './prefer.js'
import type { Reply } from './respond.js'
import { routes } from './routes.js'

/**
 * The API, under `/v1/`. Its steps around the pipeline's, in the contract's
 * order:
 *
 * faults drawn → rate limit token taken → latency → (path, method) → key
 * (401) → rate limit (429) → `Prefer` (400, then a forced status) →
 * simulated failure → scope (403) → (parameters, body, endpoint) → rate
 * limit headers → journal and usage report.
 *
 * @note Faults come first, before anything about the request is known:
 * every request draws its latency and failure from the seed's stream, a 404
 * or a 401 as much as a good one, so the same requests in the same order
 * meet the same failures after every reset. A rate limit token is taken for
 * the same reason: a request the sandbox refuses still counts against its key.
 */
export const API: Plane = {
  name: 'api',
  owns: isApiPath,
  endpoints: routes,
  emptyBody: 'refused',
  steps: apiSteps,
}

function apiSteps(context: RequestContext): PlaneSteps {
  const { sandbox, request } = context
  const authorization = request.headers.get('authorization')
  const token = bearerToken(authorization)
  // The key the request carries, when it is one: its rate limit bucket and its line in the usage report.
  const presented = token === null ? undefined : sandbox.apiKey(token)
  let faults: ReturnType<Sandbox['nextFaults']> | undefined
  let rateLimit: RateLimitState | undefined
  let preferences: Preferences = { applied: [] }
  return {
    async beforeRoute() {
      // Faults of the sandbox's own, drawn before anything else (see the note above), and the rate limit token.
      faults = sandbox.nextFaults()
      rateLimit = sandbox.rateLimiter?.take(presented?.key ?? ANONYMOUS)
      await sleep(faults.latencyMs)
    },
    async authenticate(endpoint) {
      const route = endpoint as ApiEndpoint
      // The key; a key over its rate limit stops here.
      const apiKey = authenticate(sandbox, authorization, token, presented)
      if (rateLimit?.exceeded) throw rateLimited(rateLimit)

      // Faults the request asked for (Prefer), then the sandbox's simulated failures.
      preferences = parsePrefer(request.headers.get('prefer'), route)
      await sleep(preferences.delay ?? 0)
      if (preferences.code !== undefined && preferences.code !== successStatusOf(route))
        throw forcedError(preferences.code, { sandbox, route, apiKey, endpoints: routes })
      if (faults?.failure) throw forcedError(faults.failure, { sandbox, route, apiKey, endpoints: routes })

      // The endpoint's scope.
      authorize(apiKey, route)
      return apiKey
    },
    finish(reply, endpoint) {
      if (rateLimit) setRateLimitHeaders(reply.headers, rateLimit)
      if (preferences.applied.length > 0) reply.headers.set('Preference-Applied', preferences.applied.join(', '))
      // The usage report counts every request of a valid key, also those that stopped before the key check (404, 405).
      const entry = journalEntry(sandbox, { ...context, status: reply.status, key: token, reply })
      const usage = presented && usageOf(context, presented, endpoint as ApiEndpoint | undefined, reply.status)
      sandbox.recordRequest(entry, usage)
    },
  }
}

/** The rate limit bucket of requests without a valid key. */
const ANONYMOUS = '(no valid key)'

/** The key the request presented (`token`, looked up once as `presented`), or the 401 that says what is wrong. */
function authenticate(
  sandbox: Sandbox,
  authorization: string | null,
  token: string | null,
  presented: ApiKey | undefined,
): ApiKey {
  if (presented) return presented
  // Built-in keys are named to help; a user's own organizations' keys never are, to anyone who asks.
  const listed = publicKeysOf(sandbox.apiKeys)
  const hint =
    listed.length > 0
      ? `Send Authorization: Bearer <key>, with a sandbox key such as ${listed[0]}.`
      : `Send Authorization: Bearer <key>, with a key of the sandbox's organizations. ${WHERE_KEYS_ARE}`
  if (authorization === null || authorization.trim() === '')
    throw new ApiError('unauthorized', `No Authorization header. ${hint}`)
  if (token === null) throw new ApiError('unauthorized', `The Authorization header is not "Bearer <key>". ${hint}`)
  throw new ApiError(
    'unauthorized',
    listed.length > 0
      ? `Unknown API key. The sandbox keys are: ${listed.join(', ')}.`
      : `Unknown API key. ${WHERE_KEYS_ARE}`,
  )
}

/** Where the keys of a user's own organizations are to be found, as the 401 does not name them. */
const WHERE_KEYS_ARE =
  'They are in the organizations the sandbox was started with (--organizations, or the organizations option), and the server prints them at start-up.'

function authorize(apiKey: ApiKey, route: ApiEndpoint): void {
  const scope = scopeOf(route)
  if (scope === null || apiKey.scopes.includes(scope)) return
  const scopes = apiKey.scopes.join(', ') || 'none'
  throw new ApiError(
    'insufficient_scope',
    `This key lacks the ${scope} scope, which ${route.method} ${route.path} needs. Its scopes: ${scopes}.`,
    { details: { required_scope: scope, key_scopes: [...apiKey.scopes] } },
  )
}

/** What the usage report counts of a request of a valid key. */
function usageOf(
  context: RequestContext,
  presented: ApiKey,
  route: ApiEndpoint | undefined,
  status: number,
): Parameters<Sandbox['usage']['record']> {
  // Only the endpoint's own parameters: a name it does not take (a 400) would make the report grow without end.
  const parameters = route
    ? [...context.url.searchParams.keys()].filter((name) => Object.hasOwn(route.query.shape, name))
    : []
  const { key, organization, scopes } = presented
  const shown = shownCredential(key, context.sandbox.options.adminToken)
  return [{ key: shown, organization_id: organization.organization_id, scopes }, route, parameters, status]
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
    reply,
  }: {
    requestId: string
    request: Request
    path: string
    url: URL
    status: number
    /** The Bearer token sent, as sent: the entry shows it as `shownCredential` does. */
    key: string | null
    started: number
    /** The answer, kept with the request's own headers and body. */
    reply?: Reply
  },
): JournalEntry {
  const { adminToken } = sandbox.options
  // The name rule (shownHeader, shownParameter) first, then the value rule for what it left.
  const scrubber = requestScrubber(sandbox, request)
  return {
    request_id: requestId,
    method: request.method,
    path: scrubber.text(path),
    query: queryOf(url.searchParams, adminToken, scrubber),
    status,
    key: key === null ? null : shownCredential(key, adminToken),
    duration_ms: Math.round((performance.now() - started) * 100) / 100,
    timestamp: sandbox.clock.iso(),
    ...(reply && {
      request: messageOf(request.headers, bodyRead(request) ?? null, adminToken, scrubber),
      response: messageOf(reply.headers, reply.body, adminToken, scrubber),
    }),
  }
}

/**
 * One side of an exchange as the journal keeps it: credentials as `shownHeader` shows them, headers cut as
 * `keptHeaders` cuts them, the body cut at 4 KiB, and the secrets `scrubber` finds replaced. Several `Set-Cookie`s
 * (which `Headers` yields one by one) are each kept, one a line: a cookie's `Expires` has a comma, a header value
 * never has a line break.
 */
function messageOf(
  headers: Headers,
  body: Uint8Array | null,
  adminToken: string | undefined,
  scrubber: Scrubber,
): JournalMessage {
  // No prototype: a header named constructor or __proto__ is kept like any other.
  const kept: Record<string, string> = Object.create(null)
  for (const [sentName, value] of headers) {
    const name = scrubber.text(sentName)
    const shown = scrubber.text(shownHeader(sentName, value, adminToken))
    const earlier = kept[name]
    kept[name] = earlier === undefined ? shown : `${earlier}\n${shown}`
  }
  const { body: text, body_truncated } = keptBody(body)
  return {
    ...keptHeaders(Object.entries(kept)),
    body: text === null ? null : scrubber.text(text, body_truncated),
    body_truncated,
  }
}

/**
 * The query parameters as the journal keeps them: a repeated one with an array of its values, a credential as
 * `shownParameter` shows it, and the secrets `scrubber` finds replaced, in names and values.
 */
function queryOf(
  searchParams: URLSearchParams,
  adminToken: string | undefined,
  scrubber: Scrubber,
): Record<string, string | string[]> {
  // No prototype: a parameter named __proto__ is kept like any other.
  const query: Record<string, string | string[]> = Object.create(null)
  for (const [sentName, sent] of searchParams) {
    const name = scrubber.text(sentName)
    const value = scrubber.text(shownParameter(sentName, sent, adminToken))
    const earlier = query[name]
    query[name] = earlier === undefined ? value : [...(Array.isArray(earlier) ? earlier : [earlier]), value]
  }
  return query
}
