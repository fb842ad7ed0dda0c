import { answerControl } from '../control/answerControl.js'
import { controlRoutes } from '../control/controlRoutes.js'
import { isControlPath } from '../control/paths.js'
import { matchRoute, type Matchable } from '../http/matchRoute.js'
import { answerApi, isApiPath } from '../http/pipeline.js'
import { newRequestId } from '../http/requestId.js'
import { errorResponse, toApiError } from '../http/respond.js'
import { routes } from '../http/routes.js'
import { answerDocument, DOCUMENT_ROUTE } from '../openapi/answerDocument.js'
import { DOCUMENT_PATH } from '../openapi/openApiDocument.js'
import type { Sandbox } from '../sandbox/Sandbox.js'

/** One part of what the sandbox answers: the paths it owns, its routes, and how it answers. */
interface Plane {
  owns(path: string): boolean
  routes: readonly Matchable[]
  answer(sandbox: Sandbox, request: Request, path: string, url: URL): Promise<Response>
}

/** What the sandbox answers below its base URL: the API, its control plane, and the OpenAPI document. */
const PLANES: readonly Plane[] = [
  { owns: isApiPath, routes, answer: answerApi },
  { owns: isControlPath, routes: controlRoutes, answer: answerControl },
  { owns: (path) => path === DOCUMENT_PATH, routes: [DOCUMENT_ROUTE], answer: answerDocument },
]

/**
 * Answers one request to the sandbox: a path below its base URL goes to
 * the plane that owns it (the API under `/v1/`, the control plane under
 * `/_sandbox/`, the document at `/openapi.json`). Any other request gets
 * `undefined`, so that MSW lets it pass.
 *
 * @example
 * const response = await answer(sandbox, new Request('https://api.example.com/v1/me', {
 *   headers: { Authorization: 'Bearer sk_sandbox_all' },
 * }))
 */
export async function answer(sandbox: Sandbox, request: Request): Promise<Response | undefined> {
  const url = new URL(request.url)
  const path = pathBelowBase(sandbox, url)
  const plane = path === undefined ? undefined : planeOf(path)
  return plane?.answer(sandbox, request, path!, url)
}

/**
 * The request's path below the sandbox's base URL, when the sandbox answers
 * it (the API, `/_sandbox/`, `/openapi.json`); still percent-encoded. The
 * MSW handler matches with it.
 *
 * @example
 * sandboxPath(sandbox, new URL('https://api.example.com/v1/calls')) // '/v1/calls'
 */
export function sandboxPath(sandbox: Sandbox, url: URL): string | undefined {
  const path = pathBelowBase(sandbox, url)
  return path !== undefined && planeOf(path) ? path : undefined
}

/**
 * Whether the sandbox answers a path (below its base URL): the API, the
 * control plane, the OpenAPI document.
 *
 * @example
 * isSandboxPath('/_sandbox/reset') // true
 */
export function isSandboxPath(path: string): boolean {
  return planeOf(path) !== undefined
}

/**
 * The answer to a method that never reaches the handlers (fetch cannot carry
 * TRACE, TRACK or CONNECT): 405 with `Allow` on a path the sandbox has, as
 * its plane would answer another method it does not take; else 404.
 */
export function methodOutsideFetch(sandbox: Sandbox, method: string, path: string): Response {
  try {
    matchRoute(planeOf(path)?.routes ?? routes, method, path)
  } catch (error) {
    return errorResponse(sandbox, newRequestId(), toApiError(error))
  }
  // No route takes these methods, so the route check always throws above.
  throw new Error(`A route takes ${method}, which fetch cannot carry.`)
}

function planeOf(path: string): Plane | undefined {
  return PLANES.find((plane) => plane.owns(path))
}

/** The path below the base URL (an origin and a path without its trailing slash, see resolveOptions); every path without one. */
function pathBelowBase(sandbox: Sandbox, url: URL): string | undefined {
  const { baseUrl } = sandbox.options
  if (baseUrl === undefined) return url.pathname
  const href = url.origin + url.pathname
  return href.startsWith(`${baseUrl}/`) ? href.slice(baseUrl.length) : undefined
}
