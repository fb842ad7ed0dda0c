import { CONTROL, LIVENESS, SESSIONS } from '../control/controlPlane.js'
import { API } from '../http/apiPlane.js'
import type { Observer, RequestContext } from '../http/Endpoint.js'
import { matchRoute, methodsAt } from '../http/matchRoute.js'
import { isSessionPath, isSessionsPath, SESSION_PREFIX, splitSessionPath } from '../http/paths.js'
import { type Plane, runEndpoint } from '../http/pipeline.js'
import { newRequestId } from '../http/requestId.js'
import { errorReply, failedReply, type Reply, toApiError, toResponse } from '../http/respond.js'
import { DOCUMENT } from '../openapi/documentPlane.js'
import type { UpstreamProxy } from '../proxy/UpstreamProxy.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import { ApiError } from '../schemas/ApiError.js'
import { echoed } from '../schemas/echoed.js'
import { SESSION_NAME_MESSAGE } from '../schemas/index.js'
import { DEFAULT_SESSION, Sessions } from '../sessions/Sessions.js'

/** What the standalone server adds to the dispatch: planes of its own, and an observer of every answer. */
export interface ServerParts {
  /** At every root, a session's too (the console). */
  planes?: readonly Plane[]
  /** At the bare root only: the server's, not a world's (its metrics). */
  rootPlanes?: readonly Plane[]
  observe?: Observer
}

/** What the sandbox answers below a root: the API, its control plane, and the OpenAPI document. */
const PLANES: readonly Plane[] = [API, LIVENESS, CONTROL, DOCUMENT]

/**
 * Answers one request to the sandbox. Below its base URL:
 *
 * `/sessions/{name}/…` → that session's world (with `sessions`), the rest of
 * the path as below → `/_sandbox/sessions…` → the sessions themselves (with
 * `sessions`) → the plane that owns the path: the API under `/v1/` (with
 * `proxy`, the upstream's at the bare root; a session's stays its world's),
 * the control plane under `/_sandbox/`, the document at `/openapi.json`.
 *
 * Any other request gets `undefined`, so that MSW lets it pass.
 *
 * @example
 * const response = await answer(sandbox, new Request('https://api.example.com/v1/me', {
 *   headers: { Authorization: 'Bearer sk_sandbox_all' },
 * }))
 */
export async function answer(
  sandbox: Sandbox,
  request: Request,
  sessions?: Sessions,
  proxy?: UpstreamProxy,
): Promise<Response | undefined> {
  const replied = await reply(sandbox, request, sessions, proxy)
  return replied && toResponse(replied)
}

/**
 * `answer`, as the reply itself (status, headers, bytes): what the standalone
 * server writes out, with no fetch `Response` made between.
 */
export async function reply(
  sandbox: Sandbox,
  request: Request,
  sessions?: Sessions,
  proxy?: UpstreamProxy,
  server: ServerParts = {},
): Promise<Reply | undefined> {
  const started = performance.now()
  const url = new URL(request.url)
  const path = pathBelowBase(sandbox, url)
  if (path === undefined) return undefined
  const contextOf = (world: Sandbox, below: string, root: string): RequestContext => ({
    sandbox: world,
    request,
    url,
    path: below,
    root,
    requestId: newRequestId(),
    started,
    observe: server.observe,
  })

  // A session's root: its name, then a path of its own planes. A bad name or an unknown path makes no session.
  if (sessions && isSessionPath(path)) {
    const { name, rest } = splitSessionPath(path)
    if (!Sessions.isName(name)) return refuse(sandbox, request, badSessionName(name))
    const plane = planeOf(rest, server.planes)
    const root = `${SESSION_PREFIX}/${name}`
    if (!plane) {
      const message = `No endpoint at ${echoed(path)}. A session's API is under ${root}/v1/, its controls under ${root}/_sandbox/.`
      return refuse(sandbox, request, new ApiError('not_found', message))
    }
    try {
      const answered = await sessions.use(name, (world) => runEndpoint(plane, contextOf(world, rest, root)))
      return underRoot(answered, root)
    } catch (error) {
      // No world to answer from: a new name past the session limit, or a session the store could not bring back.
      return refuse(sandbox, request, error)
    }
  }

  // The sessions themselves, at the bare root only.
  if (sessions && isSessionsPath(path))
    return runEndpoint(SESSIONS, { ...contextOf(sessions.base, path, ''), sessions })

  // The bare root: the server's own planes (its metrics) as well.
  const plane = planeOf(path, server.rootPlanes, server.planes)
  if (!plane) return undefined
  // In proxy mode the bare root's API is the upstream's: the one fast path, decided here and nowhere else.
  const answerAtRoot = (world: Sandbox) =>
    proxy && plane === API
      ? proxy.answer(world, request, path, url)
      : runEndpoint(plane, { ...contextOf(world, path, ''), proxy })
  return sessions ? sessions.use(DEFAULT_SESSION, answerAtRoot) : answerAtRoot(sandbox)
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

/**
 * The plane a path (below the base URL) belongs to, and the path within it: a session's own planes below its root
 * (a session has no `/_sandbox/sessions`), the sessions' at the bare root. The server's own planes aside.
 */
function planeAt(path: string): { plane: Plane | undefined; below: string; name?: string } {
  if (isSessionPath(path)) {
    const { name, rest } = splitSessionPath(path)
    return { plane: planeOf(rest), below: rest, name }
  }
  return { plane: isSessionsPath(path) ? SESSIONS : planeOf(path), below: path }
}

function badSessionName(name: string): ApiError {
  return new ApiError('invalid_parameter', `A session name ${SESSION_NAME_MESSAGE}; got "${echoed(name)}".`, {
    param: 'session',
  })
}

/** An error answered before any world is chosen: the default world's clock dates it. */
async function refuse(sandbox: Sandbox, request: Request, error: unknown): Promise<Reply> {
  return failedReply(sandbox, newRequestId(), request, error)
}

/** A session's answer, with a `Location` under the session's root, where the record is read. */
function underRoot(response: Reply, root: string): Reply {
  const location = response.headers.get('location')
  if (location?.startsWith('/')) response.headers.set('Location', root + location)
  return response
}

/** The plane that owns a path (below a root): one of the server's own, first, or the sandbox's. */
function planeOf(path: string, ...serverPlanes: (readonly Plane[] | undefined)[]): Plane | undefined {
  for (const planes of serverPlanes) {
    const plane = planes?.find((candidate) => candidate.owns(path))
    if (plane) return plane
  }
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
