import { bearerToken } from '../http/bearerToken.js'
import { readJsonObject } from '../http/body.js'
import { matchRoute } from '../http/matchRoute.js'
import { parseQuery } from '../http/parameters.js'
import { successStatusOf } from '../http/prefer.js'
import { newRequestId } from '../http/requestId.js'
import { failedReply, respond, type Reply } from '../http/respond.js'
import type { UpstreamProxy } from '../proxy/UpstreamProxy.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import { ApiError } from '../schemas/ApiError.js'
import { parseBody } from '../schemas/parseBody.js'
import { controlRoutes } from './controlRoutes.js'

/**
 * Answers the control plane (`/_sandbox/...`): route (404/405) → admin
 * token, when the sandbox has one (401) → parameters (400) → body
 * (415/400/413/422) → the control route. No API key, no faults, no rate
 * limit, and nothing goes into the journal.
 *
 * @example
 * const request = new Request('http://127.0.0.1:4010/_sandbox/reset', { method: 'POST' })
 * await answerControl(sandbox, request, '/_sandbox/reset', new URL(request.url))
 */
export async function answerControl(
  sandbox: Sandbox,
  request: Request,
  path: string,
  url: URL,
  _root = '',
  proxy?: UpstreamProxy,
): Promise<Reply> {
  const requestId = newRequestId()
  try {
    await sandbox.ready
    const { route } = matchRoute(controlRoutes, request.method, path)
    checkAdminToken(sandbox, request.headers.get('authorization'))
    const query = parseQuery(route, url.searchParams)
    const fields = route.body && (await readJsonObject(request, { optional: true }))
    const body = route.body ? parseBody(route.body, fields, route.checkBody?.(sandbox, fields!)) : undefined
    await sandbox.settle()
    const result = await route.answer({ sandbox, query, body, proxy })
    return respond(sandbox, requestId, result.status ?? successStatusOf(route), result.body, result.headers)
  } catch (error) {
    return failedReply(sandbox, requestId, request, error)
  }
}

/** The admin token's check, when the sandbox has one: 401 without it. */
export function checkAdminToken(sandbox: Sandbox, authorization: string | null): void {
  const { adminToken } = sandbox.options
  if (adminToken === undefined) return
  const token = bearerToken(authorization)
  if (token !== adminToken) {
    const problem = authorization ? 'carries another token' : 'has no Authorization header'
    throw new ApiError(
      'unauthorized',
      `The control plane wants Authorization: Bearer <admin token> (--admin-token); this request ${problem}.`,
    )
  }
}
