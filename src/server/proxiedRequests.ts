import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import type { SandboxWithHandlers } from '../handlers/createSandbox.js'
import { isApiPath } from '../http/pipeline.js'
import { newRequestId } from '../http/requestId.js'
import { errorResponse, unexpected } from '../http/respond.js'
import type { UpstreamProxy } from '../proxy/UpstreamProxy.js'
import { DEFAULT_SESSION } from '../sessions/Sessions.js'
import { fetchRequestOf } from './fetchExchange.js'
import { EXPOSED_HEADERS, OUTSIDE_FETCH, sendAnswer, writeAnswer } from './httpAnswers.js'

/**
 * The standalone server's listener in proxy mode: the bare root's API
 * requests go straight to the proxy, ahead of Express, with the CORS
 * headers and the log line the app gives every answer; the rest (the
 * control plane, the sessions, `/docs`, preflights, a Host that is no
 * host) to the app.
 *
 * @note Ahead of Express: its routing and CORS middleware add about 0.4 ms
 * to each request, which is the proxy's added latency (npm run bench).
 *
 * @example
 * createServer(proxiedRequests(createApp(sandbox), sandbox))
 */
export function proxiedRequests(app: RequestListener, sandbox: SandboxWithHandlers, options: { quiet?: boolean; log?: (line: string) => void } = {}): RequestListener {
  const { proxy } = sandbox
  if (!proxy) return app
  const log = options.quiet ? undefined : (options.log ?? ((line: string) => process.stdout.write(`${line}\n`)))
  const exposed = EXPOSED_HEADERS.join(',')
  return (request, response) => {
    const url = urlOf(request)
    if (!url || request.method === 'OPTIONS' || OUTSIDE_FETCH.has(request.method!) || !isApiPath(url.pathname)) return app(request, response)
    const started = performance.now()
    // As the app's cors() and morgan() would: any origin, and a line `GET /v1/calls 200 4.210 ms req_…`.
    response.setHeader('Access-Control-Allow-Origin', '*')
    response.setHeader('Access-Control-Expose-Headers', exposed)
    if (log) response.once('finish', () => log(`${request.method} ${request.url} ${response.statusCode} ${(performance.now() - started).toFixed(3)} ms ${response.getHeader('x-request-id') ?? '-'}`))
    answerProxied(sandbox, proxy, request, response, url).catch((error: unknown) => {
      console.error('[call-sandbox] unexpected server error:', error)
      void sendAnswer(response, errorResponse(sandbox, newRequestId(), unexpected(error)))
    })
  }
}

/**
 * A request of the bare root's API in proxy mode, answered by the proxy
 * in the default session's world, as `answer` would, and written out in one piece.
 */
export async function answerProxied(sandbox: SandboxWithHandlers, proxy: UpstreamProxy, request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
  const fetchRequest = fetchRequestOf(request, url)
  const { status, headers, body } = await sandbox.sessions.use(DEFAULT_SESSION, (world) => proxy.exchange(world, fetchRequest, url.pathname, url))
  writeAnswer(response, status, headers, body)
}

/** The request's URL, or undefined when its Host is no host (`exa[mple`, `a:99999`): the app answers that one. */
export function urlOf(request: IncomingMessage): URL | undefined {
  try {
    return new URL(request.url ?? '/', `http://${request.headers.host}`)
  } catch {
    return undefined
  }
}
