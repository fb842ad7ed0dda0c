import type { IncomingMessage, RequestListener } from 'node:http'
import type { SandboxWithHandlers } from '../handlers/createSandbox.js'
import { isSandboxPath, reply } from '../handlers/answer.js'
import { newRequestId } from '../http/requestId.js'
import { errorReply, unexpected } from '../http/respond.js'
import { ApiError } from '../schemas/ApiError.js'
import { fetchExchange } from './fetchExchange.js'
import {
  allowAnyOrigin,
  logWhenFinished,
  type LogOptions,
  OUTSIDE_FETCH,
  requestLog,
  sendReply,
} from './httpAnswers.js'

/**
 * The standalone server's listener: a request the sandbox answers (its API,
 * in proxy mode the upstream's; its control plane, sessions and document)
 * goes straight to the sandbox's dispatch, with the CORS headers and the log
 * line the app gives every answer. The rest (the reference at `/docs`,
 * preflights, a Host that is no host, unknown paths, methods fetch cannot
 * carry) goes to the app, which answers them all.
 *
 * @note Ahead of Express: Express's own handling costs about 70 µs a
 * request (plain Express against plain node:http sending the same bytes,
 * npm run bench), a third of the CLI's time an answer; the answers are the same.
 *
 * @example
 * createServer(sandboxRequests(createApp(sandbox), sandbox))
 */
export function sandboxRequests(
  app: RequestListener,
  sandbox: SandboxWithHandlers,
  options: LogOptions = {},
): RequestListener {
  const log = requestLog(options)
  return (request, response) => {
    // HTTP itself, before any path: Node leaves these to the listener (see startServer), so they are in the envelope.
    const refusal = refusedByHttp(request)
    if (refusal) {
      allowAnyOrigin(response)
      if (log) logWhenFinished(request, response, log)
      return sendReply(response, errorReply(sandbox, newRequestId(), refusal))
    }
    const url = urlOf(request)
    if (
      !url ||
      request.method === 'OPTIONS' ||
      OUTSIDE_FETCH.has(request.method!) ||
      !isSandboxPath(url.pathname, true)
    )
      return app(request, response)
    allowAnyOrigin(response)
    if (log) logWhenFinished(request, response, log)
    fetchExchange(request, response, url, (fetchRequest) =>
      reply(sandbox, fetchRequest, sandbox.sessions, sandbox.proxy),
    )
      .then((answered) => answered || app(request, response))
      .catch((error: unknown) => {
        console.error('[call-sandbox] unexpected server error:', error)
        sendReply(response, errorReply(sandbox, newRequestId(), unexpected(error)))
      })
  }
}

/**
 * What HTTP itself refuses, or undefined: an HTTP/1.1 request without a Host
 * (RFC 9112, 3.2), an expectation other than `100-continue` (RFC 9110, 10.1.1).
 */
function refusedByHttp(request: IncomingMessage): ApiError | undefined {
  if (request.headers.host === undefined && request.httpVersion === '1.1') {
    return new ApiError('invalid_parameter', 'The request has no Host header, which HTTP/1.1 requires.', {
      param: 'Host',
    })
  }
  const expect = request.headers.expect
  if (expect !== undefined && expect.trim().toLowerCase() !== '100-continue') {
    const message = `The sandbox meets no expectation but 100-continue; got Expect: ${expect}.`
    return new ApiError('expectation_failed', message, { param: 'Expect' })
  }
  return undefined
}

/** The request's URL, or undefined when its Host is no host (`exa[mple`, `a:99999`): the app answers that one. */
export function urlOf(request: IncomingMessage): URL | undefined {
  try {
    return new URL(request.url ?? '/', `http://${request.headers.host}`)
  } catch {
    return undefined
  }
}
