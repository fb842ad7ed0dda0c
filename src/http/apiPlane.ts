import { publicKeysOf, shownCredential } from '../sandbox/credentials.js'
import type { NextFaults } from '../sandbox/Faults.js'
import type { ApiKey } from '../sandbox/KeyRing.js'
import type { RateLimitState } from '../sandbox/RateLimiter.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import type { KeyInfo } from '../sandbox/Usage.js'
import { ApiError } from '../schemas/ApiError.js'
import type { FaultRule } from '../schemas/faultRule.js'
import { bearerToken } from './bearerToken.js'
import { type ApiEndpoint, type Endpoint, type RequestContext, scopeOf, successStatusOf } from './Endpoint.js'
import { journalEntry } from './journalEntry.js'
import { isApiPath } from './paths.js'
import type { Plane, PlaneSteps } from './pipeline.js'
import { forcedError, NO_PREFERENCES, type Preferences, parsePrefer } from './prefer.js'
import { ConnectionDropped, type Reply } from './respond.js'
import { routes } from './routes.js'
import { boundedQuery } from './queryBound.js'

/**
 * The API, under `/v1/`. Its steps around the pipeline's, in the contract's
 * order:
 *
 * faults drawn → rate limit token taken → latency → (path, method) → the
 * test's fault rules (its status, its delay, or no answer) → key (401) →
 * rate limit (429) → `Prefer` (400, its delay, then a forced status) →
 * simulated failure → scope (403) → (parameters, body, endpoint) → rate
 * limit headers, `Preference-Applied` → journal (naming the rule met) and
 * usage report.
 *
 * The console's own reads (`isConsoleRead`) skip the faults, the rate limit, the fault rules, the journal and the
 * usage report: looking at the world must not change what a test of it meets, nor what its journal and report say.
 *
 * @note Faults come first, before anything about the request is known:
 * every request draws its latency and failure from the seed's stream, a 404
 * or a 401 as much as a good one, so the same requests in the same order
 * meet the same failures after every reset. A rate limit token is taken for
 * the same reason: a request the sandbox refuses still counts against its key.
 * @note Fault rules come once the endpoint is known, so a rule on a path
 * that does not exist never hides its 404, and before the key, so a rule can
 * fail a client that sends none; a rule's `key` is the presented one.
 */
export const API: Plane = {
  name: 'api',
  owns: isApiPath,
  endpoints: routes,
  emptyBody: 'refused',
  steps: (context) => new ApiSteps(context),
}

/** The API's steps for one request, and what each learns for the next: its faults, its rate limit, its `Prefer`. */
class ApiSteps implements PlaneSteps {
  readonly #context: RequestContext
  readonly #authorization: string | null
  readonly #token: string | null
  /** The key the request carries, when it is one: its rate limit bucket and its line in the usage report. */
  readonly #presented: ApiKey | undefined
  #faults: NextFaults = NO_FAULTS
  #rateLimit: RateLimitState | undefined
  #preferences: Preferences = NO_PREFERENCES
  /** The fault rule the request met, named in its journal entry. */
  #rule: FaultRule | undefined

  constructor(context: RequestContext) {
    this.#context = context
    this.#authorization = context.request.headers.get('authorization')
    this.#token = bearerToken(this.#authorization)
    this.#presented = this.#token === null ? undefined : context.sandbox.apiKey(this.#token)
  }

  /** Faults of the sandbox's own, drawn before anything else (see the note above), the rate limit token, latency. */
  async beforeRoute(): Promise<void> {
    const { sandbox, consoleRead } = this.#context
    if (consoleRead) return
    this.#faults = sandbox.nextFaults()
    this.#rateLimit = sandbox.rateLimiter?.take(this.#presented?.key ?? ANONYMOUS)
    await sleep(this.#faults.latencyMs)
  }

  /** The first fault rule that meets the request (see the note above): its error, its delay, or no answer. */
  async afterRoute(endpoint: Endpoint): Promise<void> {
    const { sandbox, request, path, consoleRead } = this.#context
    if (consoleRead) return
    const rule = await sandbox.faults.take({ method: request.method, path, key: this.#presented?.key })
    if (!rule) return
    this.#rule = rule
    if (rule.delay_ms !== undefined) return sleep(rule.delay_ms)
    if (rule.error === 'network') throw new ConnectionDropped(rule.id)
    const because = `The sandbox answers ${rule.status} because fault rule ${rule.id} asks it to (GET /_sandbox/faults).`
    if (rule.status !== 429) {
      throw forcedError(rule.status!, {
        sandbox,
        route: endpoint as ApiEndpoint,
        apiKey: this.#presented,
        endpoints: routes,
        because,
      })
    }
    // As the rate limiter's own 429, with its headers: the sandbox's limit when it has one, else the requests the rule
    // let through; nothing remaining, and a retry a second on.
    this.#rateLimit = {
      limit: this.#rateLimit?.limit ?? rule.after,
      remaining: 0,
      resetAt: Date.now() + 1_000,
      exceeded: true,
    }
    throw rateLimited(this.#rateLimit, because)
  }

  /** The key (401). */
  authenticate(): ApiKey {
    return requireKey(this.#context.sandbox, this.#authorization, this.#token, this.#presented)
  }

  /** A key over its rate limit (429), then the faults it asked for (`Prefer`), then the sandbox's simulated failure. */
  async admit(endpoint: Endpoint, apiKey: ApiKey): Promise<void> {
    const route = endpoint as ApiEndpoint
    const { sandbox, request } = this.#context
    if (this.#rateLimit?.exceeded) throw rateLimited(this.#rateLimit)
    this.#preferences = parsePrefer(request.headers.get('prefer'), route)
    await sleep(this.#preferences.delay ?? 0)
    const asked = this.#preferences.code
    if (asked !== undefined && asked !== successStatusOf(route))
      throw forcedError(asked, { sandbox, route, apiKey, endpoints: routes })
    if (this.#faults.failure) throw forcedError(this.#faults.failure, { sandbox, route, apiKey, endpoints: routes })
  }

  /** The endpoint's scope (403). */
  authorize(endpoint: Endpoint, apiKey: ApiKey): void {
    requireScope(apiKey, endpoint as ApiEndpoint)
  }

  /** Whatever the answer: the rate limit headers, the preferences applied, the journal and the usage report. */
  finish(reply: Reply, endpoint: Endpoint | undefined): void {
    const context = this.#context
    if (this.#rateLimit) setRateLimitHeaders(reply.headers, this.#rateLimit)
    if (this.#preferences.applied.length > 0)
      reply.headers.set('Preference-Applied', this.#preferences.applied.join(', '))
    if (context.consoleRead) return
    // Named, not spread: every answer but the console's own reads makes an entry.
    const { sandbox, requestId, request, path, url, started } = context
    const entry = journalEntry(sandbox, {
      requestId,
      request,
      path,
      url,
      started,
      status: reply.status,
      key: this.#token,
      reply,
    })
    if (this.#rule) entry.fault = this.#rule.id
    // The usage report counts every request of a valid key, also those that stopped before the key check (404, 405).
    const usage =
      this.#presented && usageOf(context, this.#presented, endpoint as ApiEndpoint | undefined, reply.status)
    context.sandbox.recordRequest(entry, usage)
  }
}

const NO_FAULTS: NextFaults = { latencyMs: 0 }

/** The rate limit bucket of requests without a valid key. */
const ANONYMOUS = '(no valid key)'

/** The key the request presented (`token`, looked up once as `presented`), or the 401 that says what is wrong. */
function requireKey(
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

function requireScope(apiKey: ApiKey, route: ApiEndpoint): void {
  const scope = scopeOf(route)
  if (scope === null || apiKey.scopes.includes(scope)) return
  const scopes = apiKey.scopes.join(', ') || 'none'
  throw new ApiError(
    'insufficient_scope',
    `This key lacks the ${scope} scope, which ${route.method} ${route.path} needs. Its scopes: ${scopes}.`,
    { details: { required_scope: scope, key_scopes: [...apiKey.scopes] } },
  )
}

/**
 * The error statuses an API endpoint answers on its own, without `Prefer: code=` (which can force any of
 * `FORCEABLE_STATUSES` on top): the plane's (a bad parameter or `Prefer`, a key, the rate limit, a simulated or real
 * failure), then what its scope, its path's id, its body and its own conflicts add.
 *
 * @example
 * ownErrorStatusesOf(getCall) // [400, 401, 403, 404, 429, 500, 503]
 */
export function ownErrorStatusesOf(route: ApiEndpoint): number[] {
  const statuses = new Set([400, 401, 429, 500, 503])
  if (scopeOf(route) !== null) statuses.add(403)
  if (Object.keys(route.pathParams.shape).length > 0) statuses.add(404)
  if (route.body) for (const status of [413, 415, 422]) statuses.add(status)
  for (const status of route.errors ?? []) statuses.add(status)
  return [...statuses].sort((a, b) => a - b)
}

/** What the usage report counts of a request of a valid key. */
function usageOf(
  context: RequestContext,
  presented: ApiKey,
  route: ApiEndpoint | undefined,
  status: number,
): Parameters<Sandbox['usage']['record']> {
  // Only the endpoint's own parameters: a name it does not take (a 400) would make the report grow without end. Of a
  // query past the bound (a 400), those among the first 100, as the journal keeps them: a parse of all costs more.
  const parameters = route
    ? [...boundedQuery(context.url).params.keys()].filter((name) => Object.hasOwn(route.query.shape, name))
    : []
  return [keyInfoOf(presented, context.sandbox.options.adminToken), route, parameters, status]
}

/** A key as the usage report counts it, made once for each key (and admin token, which a key is shown beside). */
function keyInfoOf(presented: ApiKey, adminToken: string | undefined): KeyInfo {
  let kept = keyInfos.get(presented)
  if (!kept || kept.adminToken !== adminToken) {
    const { key, organization, scopes } = presented
    const info = { key: shownCredential(key, adminToken), organization_id: organization.organization_id, scopes }
    kept = { adminToken, info }
    keyInfos.set(presented, kept)
  }
  return kept.info
}

// The token beside the info, not in it: the report and a fleet's store write the info out whole.
const keyInfos = new WeakMap<ApiKey, { adminToken: string | undefined; info: KeyInfo }>()

function rateLimited({ limit, resetAt }: RateLimitState, because?: string): ApiError {
  const seconds = secondsUntil(resetAt)
  const message = because
    ? `${because} Retry in ${seconds} s.`
    : `This key made more than ${limit} requests in its window; retry in ${seconds} s.`
  return new ApiError('rate_limited', message, {
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
