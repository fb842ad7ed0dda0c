import { CONTROL, isAdminToken, LIVENESS, SESSIONS } from '../control/controlPlane.js'
import { API } from '../http/apiPlane.js'
import type { Observer, RequestContext } from '../http/Endpoint.js'
import { matchRoute, methodsAt } from '../http/matchRoute.js'
import { isSessionPath, isSessionsPath, SESSION_PREFIX, splitSessionPath } from '../http/paths.js'
import { type Plane, runEndpoint } from '../http/pipeline.js'
import { newRequestId } from '../http/requestId.js'
import { errorReply, failedReply, type Reply, toApiError } from '../http/respond.js'
import { DOCUMENT } from '../openapi/documentPlane.js'
import type { UpstreamProxy } from '../proxy/UpstreamProxy.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import { ApiError } from '../schemas/ApiError.js'
import { echoed } from '../text/echoed.js'
import { bearerToken } from '../http/bearerToken.js'
import { isConsoleRead } from '../http/consoleRead.js'
import { SESSION_NAME_MESSAGE } from '../schemas/index.js'
import { DEFAULT_SESSION, Sessions } from '../sessions/Sessions.js'
import type { FetchRequest } from '../http/FetchRequest.js'

/** Who may reach the control plane, as the server checks it (see `controlAccess`); in process, anyone. */
export interface ControlGuard {
  /** Why this client may not reach `path` (below the base URL), or undefined when it may. */
  refusal(peer: string | undefined, headers: Headers, path: string): ApiError | undefined
}

/**
 * What the dispatch knows beside the request: the sandbox's sessions and proxy, and over HTTP the server's context
 * (its own planes, its observer, the control plane's guard, the client's address).
 */
export interface DispatchContext {
  sessions?: Sessions
  proxy?: UpstreamProxy
  /** At every root, a session's too (the console). */
  planes?: readonly Plane[]
  /** At the bare root only: the server's, not a world's (its metrics). */
  rootPlanes?: readonly Plane[]
  observe?: Observer
  access?: ControlGuard
  /** The connection's peer address, which the guard reads. */
  peer?: string
  /** The request's URL as the Node adapter already parsed it, not parsed again (the request's `url` is its `href`). */
  url?: URL
}

/** What the sandbox answers below a root: the API, its control plane, and the OpenAPI document. */
const PLANES: readonly Plane[] = [API, LIVENESS, CONTROL, DOCUMENT]

/** Where a path (below the base URL) lands: its root, the path below it, and the session it names, if any. */
export interface Located {
  /** `/sessions/{name}`, or '' at the bare root. */
  root: string
  /** The path below the root, still percent-encoded. */
  below: string
  /** The session's name as sent (percent-encoded), below a session's root only. */
  name?: string
}

/**
 * A path below the base URL, parsed once: a session's root and the path below it, or the bare root.
 *
 * @example
 * locate('/sessions/ci-1/v1/me') // { root: '/sessions/ci-1', below: '/v1/me', name: 'ci-1' }
 */
export function locate(path: string): Located {
  if (!isSessionPath(path)) return { root: '', below: path }
  const { name, rest } = splitSessionPath(path)
  return { root: `${SESSION_PREFIX}/${name}`, below: rest, name }
}

/**
 * The one dispatch: answers a request to the sandbox, in process (its msw
 * handler, through `answer`) and over HTTP (the server's entry) alike. Below
 * its base URL, top to bottom:
 *
 * the root (a session's, `/sessions/{name}/…`, or the bare one) → the plane
 * that owns the path below it (the server's own first: the console, and at
 * the bare root the metrics; then the sessions at the bare root, the API,
 * the control plane, the document) → the control plane's guard (over HTTP)
 * → the session's name → that root's world → the pipeline. In proxy mode
 * the bare root's API is the upstream's: the one fast path, decided here
 * and nowhere else.
 *
 * Undefined for a request below no root of the sandbox (another base URL, a
 * path no plane owns), so that msw lets it pass and the server's entry hands
 * it on.
 *
 * @example
 * const reply = await dispatch(sandbox, new Request('https://api.example.com/v1/me'), { sessions })
 */
export async function dispatch(
  sandbox: Sandbox,
  request: FetchRequest,
  context: DispatchContext = {},
): Promise<Reply | undefined> {
  const started = performance.now()
  const url = context.url ?? new URL(request.url)
  const path = pathBelowBase(sandbox, url)
  if (path === undefined) return undefined
  const { sessions, proxy } = context
  const requestId = newRequestId()
  const { root, below, name } = sessions ? locate(path) : { root: '', below: path, name: undefined }
  const atSession = name !== undefined

  // The plane that owns the path below the root; none at the bare root: not the sandbox's path.
  const plane = atSession
    ? planeOf(below, { planes: context.planes })
    : planeOf(below, { planes: context.planes, rootPlanes: context.rootPlanes, withSessions: sessions !== undefined })
  if (!plane && !atSession) return undefined

  // Who may reach the control plane (over HTTP), before any endpoint sees the request.
  const refusal = context.access?.refusal(context.peer, request.headers, path)
  if (refusal) return refuse(sandbox, requestId, request, refusal)

  // A session's root: a bad name or a path no plane owns makes no session.
  if (atSession && !Sessions.isName(name)) return refuse(sandbox, requestId, request, badSessionName(name))
  if (!plane) {
    const message = `No endpoint at ${echoed(path)}. A session's API is under ${root}/v1/, its controls under ${root}/_sandbox/.`
    return refuse(sandbox, requestId, request, new ApiError('not_found', message))
  }

  // The console's own reads leave no trace: not journaled, not counted, not observed (see isConsoleRead).
  const consoleRead = isConsoleRead(request)
  const contextOf = (world: Sandbox): RequestContext => ({
    sandbox: world,
    request,
    url,
    path: below,
    root,
    requestId,
    started,
    observe: consoleRead ? undefined : context.observe,
    consoleRead,
    proxy: atSession ? undefined : proxy,
  })
  if (!sessions) return runEndpoint(plane, contextOf(sandbox))
  // The sessions themselves answer from the server's own world, whichever session is in memory.
  if (plane === SESSIONS) return runEndpoint(plane, { ...contextOf(sessions.base), sessions })
  if (!atSession)
    return sessions.use(DEFAULT_SESSION, (world) =>
      proxy && plane === API
        ? proxy.answer(world, request, below, url, consoleRead)
        : runEndpoint(plane, contextOf(world)),
    )
  const stranger = sessions.has(name) ? undefined : unprovenFirstRequest(sandbox, request)
  if (stranger) {
    // What no world of its own shapes (its OpenAPI document, liveness, the console's files) answers, making nothing.
    if (plane === DOCUMENT || plane.needsWorld === false) return runEndpoint(plane, contextOf(sessions.base))
    return refuse(sandbox, requestId, request, stranger)
  }
  try {
    return await sessions.use(name, (world) => runEndpoint(plane, contextOf(world)))
  } catch (error) {
    // No world to answer from: a new name past the session limit, or a session the store could not bring back.
    return refuse(sandbox, requestId, request, error)
  }
}

/**
 * The request's path below the sandbox's base URL, when the sandbox answers
 * it (the API, `/_sandbox/`, `/openapi.json`, and with `sessions` every
 * path under `/sessions/`); still percent-encoded. The MSW handler matches
 * with it.
 *
 * @example
 * sandboxPath(sandbox, new URL('https://api.example.com/v1/calls')) // '/v1/calls'
 */
export function sandboxPath(sandbox: Sandbox, url: URL, sessions?: Sessions): string | undefined {
  const path = pathBelowBase(sandbox, url)
  return path !== undefined && isSandboxPath(path, sessions !== undefined) ? path : undefined
}

/**
 * Whether the sandbox answers a path (below its base URL): the API, the
 * control plane, the OpenAPI document, and (`withSessions`) every path of a session.
 *
 * @example
 * isSandboxPath('/_sandbox/reset') // true
 */
export function isSandboxPath(path: string, withSessions = false): boolean {
  return planeOf(path) !== undefined || (withSessions && isSessionPath(path))
}

/**
 * The answer to a method that never reaches the handlers (fetch cannot carry
 * TRACE, TRACK or CONNECT): 405 with `Allow` on a path the sandbox has, as
 * its plane would answer another method it does not take; else 404.
 */
export function methodOutsideFetch(sandbox: Sandbox, method: string, path: string): Reply {
  try {
    const { plane, below, name } = planeAt(path)
    if (name !== undefined && !Sessions.isName(name)) throw badSessionName(name)
    matchRoute((plane ?? API).endpoints, method, below)
  } catch (error) {
    return errorReply(sandbox, newRequestId(), toApiError(error))
  }
  // No route takes these methods, so the route check always throws above.
  throw new Error(`A route takes ${method}, which fetch cannot carry.`)
}

/**
 * The methods a path of the sandbox takes (below its base URL), for a CORS
 * preflight; none for a path it does not have.
 *
 * @example
 * methodsOf('/sessions/ci-1/v1/contacts') // ['GET', 'POST']
 */
export function methodsOf(path: string): string[] {
  const { plane, below } = planeAt(path)
  return plane ? methodsAt(plane.endpoints, below) : []
}

/** The sandbox's own plane of a path (below the base URL), and the path within it; the server's own planes aside. */
function planeAt(path: string): { plane: Plane | undefined; below: string; name?: string } {
  const { below, name } = locate(path)
  return { plane: planeOf(below, { withSessions: name === undefined }), below, name }
}

function badSessionName(name: string): ApiError {
  return new ApiError('invalid_parameter', `A session name ${SESSION_NAME_MESSAGE}; got "${echoed(name)}".`, {
    param: 'session',
  })
}

/** An error answered before any world is chosen: the default world's clock dates it. */
function refuse(sandbox: Sandbox, requestId: string, request: FetchRequest, error: unknown): Promise<Reply> {
  return failedReply(sandbox, requestId, request, error)
}

/**
 * The plane that owns a path (below a root): the server's own first (at the bare root its metrics, `rootPlanes`; at
 * every root its console, `planes`), then the sessions' (`withSessions`: at the bare root of a sandbox with sessions),
 * then the sandbox's.
 */
function planeOf(
  path: string,
  {
    rootPlanes,
    planes,
    withSessions = false,
  }: { rootPlanes?: readonly Plane[]; planes?: readonly Plane[]; withSessions?: boolean } = {},
): Plane | undefined {
  const own = rootPlanes?.find((plane) => plane.owns(path)) ?? planes?.find((plane) => plane.owns(path))
  if (own) return own
  if (withSessions && isSessionsPath(path)) return SESSIONS
  return PLANES.find((plane) => plane.owns(path))
}

/**
 * The path below the base URL (an origin and a path without its trailing slash, see resolveOptions); every path without
 * one.
 */
function pathBelowBase(sandbox: Sandbox, url: URL): string | undefined {
  const { baseUrl } = sandbox.options
  if (baseUrl === undefined) return url.pathname
  const href = url.origin + url.pathname
  return href.startsWith(`${baseUrl}/`) ? href.slice(baseUrl.length) : undefined
}

/**
 * On a server with an admin token (one that listens beyond loopback), a session is made by its first request only
 * when that request carries the admin token or one of the sandbox's keys: a client with neither cannot fill the
 * session limit and lock out those who have them. Without an admin token, any first request makes its session.
 */
function unprovenFirstRequest(sandbox: Sandbox, request: FetchRequest): ApiError | undefined {
  if (sandbox.options.adminToken === undefined) return undefined
  const token = bearerToken(request.headers.get('authorization'))
  if (isAdminToken(sandbox, token) || (token !== null && sandbox.apiKey(token) !== undefined)) return undefined
  return new ApiError(
    'unauthorized',
    'This session does not exist yet, and on a server with an admin token only a request with a key of the sandbox (Authorization: Bearer sk_…) or the admin token makes one.',
  )
}
