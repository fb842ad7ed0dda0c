import { ApiError } from '../http/ApiError.js'
import { bearerToken } from '../http/bearerToken.js'
import { parseBody, readJsonObject } from '../http/body.js'
import { matchRoute } from '../http/matchRoute.js'
import { parseQuery } from '../http/parameters.js'
import { newRequestId } from '../http/requestId.js'
import { successStatusOf } from '../http/prefer.js'
import { failedAnswer, respond } from '../http/respond.js'
import { openApiDocument } from '../openapi/openApiDocument.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import { controlRoutes } from './controlRoutes.js'
import { DOCUMENT_PATH } from './paths.js'

/**
 * Answers the control plane (`/_sandbox/...`) and the OpenAPI document:
 * route (404/405) → admin token, when the sandbox has one (401) →
 * parameters (400) → body (415/400/413/422) → the control route. No API
 * key, no faults, no rate limit, and nothing goes into the journal.
 *
 * @example
 * await answerControl(sandbox, new Request('http://127.0.0.1:4010/_sandbox/reset', { method: 'POST' }), '/_sandbox/reset', url)
 */
export async function answerControl(sandbox: Sandbox, request: Request, path: string, url: URL): Promise<Response> {
  const requestId = newRequestId()
  try {
    await sandbox.ready
    if (path === DOCUMENT_PATH) {
      if (request.method !== 'GET') throw new ApiError('method_not_allowed', `${DOCUMENT_PATH} takes GET only.`, { headers: { Allow: 'GET' } })
      return new Response(JSON.stringify(openApiDocument(sandbox)), {
        headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestId, 'Cache-Control': 'no-store' },
      })
    }
    const { route } = matchRoute(controlRoutes, request.method, path)
    checkAdminToken(sandbox, request.headers.get('authorization'))
    const query = parseQuery(route, url.searchParams)
    const fields = route.body && (await readJsonObject(request, { optional: true }))
    const body = route.body ? parseBody(route.body, fields, route.checkBody?.(sandbox, fields!)) : undefined
    await sandbox.settle()
    const result = await route.answer({ sandbox, query, body })
    return respond(sandbox, requestId, result.status ?? successStatusOf(route), result.body, result.headers)
  } catch (error) {
    return failedAnswer(sandbox, requestId, request, error)
  }
}

function checkAdminToken(sandbox: Sandbox, authorization: string | null): void {
  const { adminToken } = sandbox.options
  if (adminToken === undefined) return
  const token = bearerToken(authorization)
  if (token !== adminToken) {
    const problem = authorization ? 'carries another token' : 'has no Authorization header'
    throw new ApiError('unauthorized', `The control plane wants Authorization: Bearer <admin token> (--admin-token); this request ${problem}.`)
  }
}
