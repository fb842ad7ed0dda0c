import { http, type RequestHandler } from 'msw'
import type { UpstreamProxy } from '../proxy/UpstreamProxy.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import type { Sessions } from '../sessions/Sessions.js'
import { answer } from './answer.js'
import { sandboxPath } from './dispatch.js'

/**
 * The sandbox's MSW handlers: one handler for every request to the sandbox
 * (`/v1/`, `/_sandbox/`, `/openapi.json`, and with `sessions` the roots
 * under `/sessions/`), which routes inside `answer`; with `proxy`, the bare
 * root's `/v1/` goes to the upstream.
 *
 * @note One handler, not one per endpoint: MSW tries handlers in turn and
 * each one that does not match costs about 10 µs a request; the pipeline
 * also needs every request under `/v1/` to answer 404 and 405 itself.
 * @note A predicate, not a path pattern: MSW decodes a pattern's match and
 * throws on a malformed escape such as `/v1/%ZZ`, which must be a 404.
 *
 * @example
 * const server = setupServer(...createHandlers(new Sandbox({ seed: 1 })))
 */
export function createHandlers(sandbox: Sandbox, sessions?: Sessions, proxy?: UpstreamProxy): RequestHandler[] {
  return [
    http.all(
      ({ request }) => sandboxPath(sandbox, new URL(request.url), sessions) !== undefined,
      ({ request }) => answer(sandbox, request, sessions, proxy),
    ),
  ]
}
