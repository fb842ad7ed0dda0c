import { toResponse } from '../http/respond.js'
import type { UpstreamProxy } from '../proxy/UpstreamProxy.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import type { Sessions } from '../sessions/Sessions.js'
import { dispatch } from './dispatch.js'

/**
 * Answers one request to the sandbox as a fetch `Response`: the dispatch's
 * reply (see `dispatch`), for msw's handler and a caller of its own. Any other
 * request gets `undefined`, so that MSW lets it pass.
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
  const replied = await dispatch(sandbox, request, { sessions, proxy })
  return replied && toResponse(replied)
}
