import { http, type RequestHandler } from 'msw'
import type { Sandbox } from '../sandbox/Sandbox.js'
import { answer } from './pipeline.js'

/**
 * The sandbox's MSW handlers: one handler for every `/v1/` request, which
 * routes inside the pipeline.
 *
 * @note One handler, not one per endpoint: MSW tries handlers in turn and
 * each one that does not match costs about 10 µs a request; the pipeline
 * also needs every request under `/v1/` to answer 404 and 405 itself.
 */
export function createHandlers(sandbox: Sandbox): RequestHandler[] {
  const pattern = sandbox.options.baseUrl === undefined ? '*/v1/*' : `${sandbox.options.baseUrl}/v1/*`
  return [http.all(pattern, ({ request }) => answer(sandbox, request))]
}
