import type { IncomingMessage, ServerResponse } from 'node:http'
import { methodsOf } from '../handlers/dispatch.js'
import { newRequestId } from '../http/requestId.js'
import { errorReply } from '../http/respond.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import type { ControlAccess } from './controlAccess.js'
import { sendReply } from './httpAnswers.js'

/** Headers a page on another origin may read. */
const EXPOSED = [
  'X-Request-Id',
  'Location',
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Preference-Applied',
  'X-Sandbox-Contract',
  'X-Sandbox-Request-Id',
].join(',')

/** How long a browser may keep a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE = '600'

/**
 * CORS, for every answer of the standalone server, in Express and ahead of it: a preflight is answered here (true);
 * any other request gets the headers its answer will carry (false, see `corsHeaders`). A preflight to the control
 * plane from a host or page `access` does not allow gets its 403.
 *
 * @example
 * if (crossOrigin({ sandbox, access }, request, response, path)) return
 */
export function crossOrigin(
  { sandbox, access }: { sandbox: Sandbox; access: ControlAccess },
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
): boolean {
  if (request.method !== 'OPTIONS' || request.headers['access-control-request-method'] === undefined) {
    corsHeaders(access, request, response, path)
    return false
  }
  const refusal = access.refusal(request.socket.remoteAddress, request.headers, path)
  if (refusal) {
    allowOrigin(response, undefined)
    sendReply(response, errorReply(sandbox, newRequestId(), refusal))
    return true
  }
  corsHeaders(access, request, response, path)
  // The methods a preflight allows are those of the path asked about (GET, POST for /v1/contacts), as Allow says.
  const methods = methodsOf(path)
  response.setHeader('Access-Control-Allow-Methods', methods.length > 0 ? methods.join(',') : 'GET')
  const asked = request.headers['access-control-request-headers']
  if (asked !== undefined) {
    response.setHeader('Access-Control-Allow-Headers', asked)
    response.appendHeader('Vary', 'Access-Control-Request-Headers')
  }
  response.setHeader('Access-Control-Max-Age', PREFLIGHT_MAX_AGE)
  response.statusCode = 204
  response.setHeader('Content-Length', '0')
  response.end()
  return true
}

/**
 * The CORS headers of an answer to `path`: the API, `/openapi.json` and the rest say any origin (`*`: keys travel in
 * Authorization, never in cookies); the control plane names only an origin `access` allows.
 */
export function corsHeaders(
  access: ControlAccess,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
): void {
  allowOrigin(response, access.allowOrigin(request, path))
}

/** The origin a page must be on to read the answer (`*`: any), or none; an answer that depends on it says so in Vary. */
function allowOrigin(response: ServerResponse, origin: string | undefined): void {
  if (origin !== '*') response.appendHeader('Vary', 'Origin')
  if (origin === undefined) return
  response.setHeader('Access-Control-Allow-Origin', origin)
  response.setHeader('Access-Control-Expose-Headers', EXPOSED)
}
