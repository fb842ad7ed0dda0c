import { matchRoute } from '../http/matchRoute.js'
import { newRequestId } from '../http/requestId.js'
import { failedReply, type Reply } from '../http/respond.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import { DOCUMENT_PATH, openApiDocument } from './openApiDocument.js'

/** The document's one route: what route matching needs to answer 405 for another method. */
export const DOCUMENT_ROUTE = { method: 'GET', path: DOCUMENT_PATH } as const

/**
 * Answers `GET /openapi.json` with the OpenAPI document (its servers: the
 * session's root, `root`, or the bare root's); another method is a 405
 * with `Allow: GET`. No API key, no admin token.
 *
 * @example
 * await answerDocument(sandbox, request, '/openapi.json', new URL(request.url), '/sessions/ci-1')
 */
export async function answerDocument(
  sandbox: Sandbox,
  request: Request,
  _path: string,
  _url: URL,
  root: string,
): Promise<Reply> {
  const requestId = newRequestId()
  try {
    await sandbox.ready
    matchRoute([DOCUMENT_ROUTE], request.method, DOCUMENT_PATH)
    const session = root === '' ? undefined : root.slice(root.lastIndexOf('/') + 1)
    return {
      status: 200,
      headers: new Headers({
        'Content-Type': 'application/json',
        'X-Request-Id': requestId,
        'Cache-Control': 'no-store',
      }),
      body: new TextEncoder().encode(JSON.stringify(openApiDocument(sandbox, { session }))),
    }
  } catch (error) {
    return failedReply(sandbox, requestId, request, error)
  }
}
