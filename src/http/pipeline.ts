import type { ApiKey } from '../sandbox/KeyRing.js'
import { SessionEnded } from '../sandbox/StoreLog.js'
import { parseBody } from '../schemas/parseBody.js'
import { readJsonObject } from './body.js'
import { type Endpoint, type RequestContext, successStatusOf } from './Endpoint.js'
import { matchRoute } from './matchRoute.js'
import { parseUrlQuery, parseValues } from './parameters.js'
import { failedReply, jsonReply, type Reply, respond, textReply } from './respond.js'

/**
 * One part of what the sandbox answers (the API, the control plane, the
 * sessions, the document): its endpoints, and the steps of its own that the
 * pipeline runs around them.
 */
export interface Plane {
  /** Its name, for metrics: `api`, `control`, `sessions`, `document`, `liveness`. */
  name: string
  /**
   * `false`: answers without the world (liveness): no waiting for the seed, no catching up with the store, nothing
   * settled.
   */
  needsWorld?: false
  /** Whether a path (below the root) is this plane's. */
  owns(path: string): boolean
  endpoints: readonly Endpoint[]
  /** What its 404 lists (default its endpoints): the endpoints of other planes under the same prefix too. */
  listed?: readonly Endpoint[]
  /** An empty body: refused as not JSON (the API's), or `{}` (the control plane's POSTs). */
  emptyBody: 'refused' | 'is {}'
  /** The plane's own steps for one request. */
  steps(context: RequestContext): PlaneSteps
}

/**
 * A plane's own steps for one request, each at its place in the contract's order; an object per request, so that
 * what one step learns (the API's faults, rate limit and `Prefer`) is a field the next one reads.
 */
export interface PlaneSteps {
  /** Before the endpoint is known (the API: faults, the rate limit token and latency, so that a 404 meets them too). */
  beforeRoute?(): Promise<void>
  /** Once the endpoint is known, before who calls is (the API: the fault rules a test set, which fail a 401 too). */
  afterRoute?(endpoint: Endpoint): Promise<void>
  /** Who calls (401): the API key the endpoint needs, the admin token, or nobody in particular. */
  authenticate(endpoint: Endpoint): ApiKey | undefined
  /** What stops a known caller before its scope is looked at (the API: 429, `Prefer`, simulated failures). */
  admit?(endpoint: Endpoint, apiKey: ApiKey | undefined): Promise<void>
  /** Whether the caller may call this endpoint (the API: the key's scope, 403). */
  authorize?(endpoint: Endpoint, apiKey: ApiKey | undefined): void
  /** Once answered, whatever the answer (the API: rate limit headers, the journal, the usage report). */
  finish?(reply: Reply, endpoint: Endpoint | undefined): void
}

const OPEN: PlaneSteps = { authenticate: () => undefined }

/** The steps of a plane anyone may call (liveness, the OpenAPI document, the console's pages): no authentication. */
export function openSteps(): PlaneSteps {
  return OPEN
}

/** Each of a type's fields, the optional ones too, as an object literal must name them. */
type EveryField<T> = { [Field in keyof Required<T>]: T[Field] }

/**
 * Answers one request with the plane that owns its path, along the
 * contract's order of checks, one step a comment below:
 *
 * world ready and caught up with its store → the plane's steps before routing → path (404) → method
 * (405) → the plane's steps once routed (the API's fault rules) → who calls (401) → what stops it first (the API's 429, `Prefer`,
 * simulated failures) → its scope (403) → path values and query (400) → body
 * (415/400/413/422) → the endpoint (its record 404, its conflict 409) →
 * envelope → the plane's last steps.
 *
 * Every early return is an error in the same envelope.
 *
 * @example
 * const reply = await runEndpoint(API, { sandbox, request, url, path: '/v1/me', root: '', requestId, started })
 */
export async function runEndpoint(plane: Plane, context: RequestContext): Promise<Reply> {
  const { sandbox, request, url, requestId } = context
  const steps = plane.steps(context)
  let endpoint: Endpoint | undefined
  let reply: Reply
  let caughtUp = false
  try {
    if (plane.needsWorld !== false) {
      await sandbox.ready
      // With a store other servers share: what they wrote first, so that no answer is stale (a 503 when unreadable).
      await sandbox.catchUp()
    }
    caughtUp = true
    await steps.beforeRoute?.()

    // Route: the path must exist, then offer the method.
    const match = matchRoute(plane.endpoints, request.method, context.path, plane.listed)
    endpoint = match.route
    await steps.afterRoute?.(endpoint)

    // Who calls (401), what stops it before its scope is looked at (429, Prefer, simulated failures), its scope (403).
    const apiKey = steps.authenticate(endpoint)
    await steps.admit?.(endpoint, apiKey)
    steps.authorize?.(endpoint, apiKey)

    // Parameters: path values, then the query string.
    const params = parseValues(endpoint.pathParams, match.pathValues)
    const query = parseUrlQuery(endpoint, url)

    // The body: JSON, then its fields, with what the schema cannot check listed beside its own problems.
    let body: unknown
    if (endpoint.body) {
      const fields = await readJsonObject(request, { optional: plane.emptyBody === 'is {}' })
      body = parseBody(endpoint.body, fields, endpoint.checkBody?.(sandbox, fields))
    }

    // The endpoint, as of one instant: what is due by meta.timestamp has come, so a client polling with
    // since=meta.timestamp misses nothing.
    const now = sandbox.clock.now()
    if (plane.needsWorld !== false) await sandbox.settle(now)
    // Named, not spread (every request makes one); each of the context's fields is required here, so none is left out.
    const given: EveryField<RequestContext> & Parameters<Endpoint['answer']>[0] = {
      sandbox,
      request,
      url,
      path: context.path,
      root: context.root,
      requestId,
      started: context.started,
      sessions: context.sessions,
      proxy: context.proxy,
      observe: context.observe,
      consoleRead: context.consoleRead,
      params,
      query,
      body,
      apiKey,
    }
    const outcome = await endpoint.answer(given)
    const status = outcome.status ?? successStatusOf(endpoint)
    if (outcome.text !== undefined) reply = textReply(requestId, status, outcome.text, outcome.headers)
    else if (outcome.meta === false) reply = jsonReply(requestId, status, outcome.body, outcome.headers)
    else reply = respond(sandbox, requestId, status, outcome.body, outcome.headers, outcome.asOf ?? now)
  } catch (error) {
    // Ended on another server before anything of the request was read: the name's fresh session answers it instead
    // (see `Sessions.use`). Later (a write that lost the race to the end), a 503 to retry.
    if (error instanceof SessionEnded && !caughtUp) throw error
    reply = await failedReply(sandbox, requestId, request, error)
  }
  // Before the plane's last steps, so that the journal keeps the Location the client gets.
  if (context.root !== '') underRoot(reply, context.root)
  steps.finish?.(reply, endpoint)
  context.observe?.({
    plane: plane.name,
    endpoint: endpoint && `${endpoint.method} ${endpoint.path}`,
    session: context.root === '' ? 'default' : context.root.slice(context.root.lastIndexOf('/') + 1),
    status: reply.status,
    seconds: (performance.now() - context.started) / 1000,
  })
  return reply
}

/** A session's answer, with a `Location` under the session's root, where the record is read. */
function underRoot(reply: Reply, root: string): void {
  const location = reply.headers.get('location')
  if (location?.startsWith('/')) reply.headers.set('Location', root + location)
}
