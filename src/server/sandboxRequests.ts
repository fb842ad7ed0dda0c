import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import type { SandboxWithHandlers } from '../handlers/createSandbox.js'
import { isSandboxPath, methodOutsideFetch, reply, type ServerParts } from '../handlers/answer.js'
import { newRequestId } from '../http/requestId.js'
import { errorReply, unexpected } from '../http/respond.js'
import { ApiError } from '../schemas/ApiError.js'
import { fetchExchange } from './fetchExchange.js'
import { type ControlAccess, type ControlAccessOptions, controlAccess } from './controlAccess.js'
import { corsHeaders, crossOrigin } from './crossOrigin.js'
import { type LogOptions, OUTSIDE_FETCH, requestLog, sendReply } from './httpAnswers.js'
import { refusedByHttp } from './httpRefusals.js'

/** The request log's options, and who may call the control plane (`controlAccess`). */
export type EntryOptions = LogOptions & ControlAccessOptions

/** What an entry of the server answers the sandbox's requests with. */
export interface SandboxEntry {
  sandbox: SandboxWithHandlers
  /** Who may call the control plane. */
  access: ControlAccess
  /** The server's own planes and observer (the command's); none in an app of `createApp` alone. */
  server?: ServerParts
}

/**
 * The standalone server's listener: what HTTP itself refuses (no Host or
 * two, a Host that is no plain host, an unmet Expect), then a request to one of the sandbox's paths (its API, in
 * proxy mode the upstream's; its control plane, sessions and document),
 * its preflight included, answered by `answerSandboxRequest` with the CORS
 * headers and the log line the app gives every answer. The rest (the
 * reference at `/docs`, unknown paths) goes to the app, which answers them all.
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
  options: EntryOptions = {},
  server: ServerParts = {},
): RequestListener {
  const log = requestLog(options, sandbox)
  const entry: SandboxEntry = { sandbox, access: controlAccess(sandbox.options.adminToken, options), server }
  return (request, response) => {
    const url = urlOf(request)
    const path = pathOf(request, url)
    // HTTP itself, before any path: Node leaves these to the listener (see startServer), so they are in the envelope.
    const refusal = refusedByHttp(request)
    if (!refusal && !isSandboxPath(path, true)) return app(request, response)
    log?.(request, response)
    if (refusal) {
      corsHeaders(entry.access, request, response, path)
      return sendReply(response, errorReply(sandbox, newRequestId(), refusal))
    }
    if (crossOrigin(entry, request, response, path)) return
    answerSandboxRequest(entry, request, response, url)
      .then((answered) => answered || app(request, response))
      .catch((error: unknown) => {
        console.error('[call-sandbox] unexpected server error:', error)
        sendReply(response, errorReply(sandbox, newRequestId(), unexpected(error)))
      })
  }
}

/**
 * Answers a request to one of the sandbox's paths over HTTP, in the app and
 * ahead of it alike: a method fetch cannot carry (TRACE, TRACK) as its plane
 * would answer another method it does not take; a Host or target that makes
 * no URL (`url` undefined) with a 400; a request the control plane does not take
 * from that host or page with a 403, before any endpoint sees it; the rest
 * through the sandbox's dispatch (`reply`, the function its msw handler calls
 * too). False when the dispatch has no answer (a sandbox with a base URL
 * elsewhere), and nothing was written.
 */
export async function answerSandboxRequest(
  { sandbox, access, server = {} }: SandboxEntry,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL | undefined,
): Promise<boolean> {
  if (OUTSIDE_FETCH.has(request.method!)) {
    sendReply(response, methodOutsideFetch(sandbox, request.method!, pathOf(request, url)))
    return true
  }
  if (!url) {
    const error = refusedByHttp(request) ?? new ApiError('invalid_parameter', 'The request target is no path or URL.')
    sendReply(response, errorReply(sandbox, newRequestId(), error))
    return true
  }
  const refusal = access.refusal(request, url.pathname)
  if (refusal) {
    sendReply(response, errorReply(sandbox, newRequestId(), refusal))
    return true
  }
  // @note The sandbox's dispatch, not msw's: a server has no fetch to intercept. node:http over msw's
  // getResponse with one trivial handler serves 2,821 req/s, the CLI 4,477 (npm run bench).
  return fetchExchange(request, response, url, (fetchRequest) =>
    reply(sandbox, fetchRequest, sandbox.sessions, sandbox.proxy, server),
  )
}

/**
 * The request's URL, or undefined when its Host or target makes none (`exa[mple`, `a:99999`) or makes one with user
 * information, which a fetch `Request` refuses to be made with (a 500 quoting the password, were it let through):
 * `refusedByHttp` says why.
 */
export function urlOf(request: IncomingMessage): URL | undefined {
  try {
    const url = new URL(request.url ?? '/', `http://${request.headers.host}`)
    return url.username === '' && url.password === '' ? url : undefined
  } catch {
    return undefined
  }
}

/** The path the dispatch answers: the URL's (dot segments resolved), or as sent when the Host makes no URL. */
export function pathOf(request: IncomingMessage, url: URL | undefined): string {
  return url?.pathname ?? (request.url ?? '/').split('?')[0]!
}
