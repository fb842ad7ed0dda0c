import type { IncomingMessage, ServerResponse } from 'node:http'
import type { SandboxWithHandlers } from '../handlers/createSandbox.js'
import { type DispatchContext, dispatch, isSandboxPath, methodOutsideFetch, sandboxPath } from '../handlers/dispatch.js'
import { newRequestId } from '../http/requestId.js'
import { errorReply, unexpected } from '../http/respond.js'
import { ApiError } from '../schemas/ApiError.js'
import { consolePlane } from './consolePages.js'
import { type ControlAccessOptions, controlAccess } from './controlAccess.js'
import { answeredPreflight, corsHeaders } from './crossOrigin.js'
import { fetchRequestOf } from './fetchExchange.js'
import { type HeaderPairs, type LogOptions, OUTSIDE_FETCH, requestLog, sendReply, setHeaders } from './httpAnswers.js'
import { refusedByHttp } from './httpRefusals.js'
import type { CountsErrors } from './metrics.js'

/** The request log's options, who may call the control plane, and whether the server keeps metrics. */
export interface EntryOptions extends LogOptions, ControlAccessOptions {
  /** `/_sandbox/metrics`, counting every answer; default true (false: none, and prom-client is never loaded). */
  metrics?: boolean
}

/** The server's one entry: Node's request and response in, the sandbox's dispatch between. */
export interface SandboxEntry {
  /**
   * Answers one request: logs it, refuses what HTTP refuses, answers a CORS preflight, and hands a request to one of
   * the sandbox's paths to the dispatch; any other request goes to `next` (the reference at `/docs`, the 404).
   */
  handle(request: IncomingMessage, response: ServerResponse, next: () => void): void
  /** Resolves once the metrics are loaded: an answer given before is not counted. */
  ready: Promise<void>
}

/**
 * The Node adapter over the sandbox's dispatch, the same in the command's
 * server (ahead of Express) and in `createApp` (as Express middleware):
 * one log line a request, what HTTP itself refuses (no Host or two, a Host
 * that is no plain host, an unmet Expect), CORS and preflights, what fetch
 * cannot carry (TRACE, a target that makes no URL); then Node's request as a
 * Fetch `Request`, with the server's context (its console and metrics, the
 * control plane's guard, the peer's address), to `dispatch`, and its reply
 * written out. The bounded body read and the request timeout are the
 * server's (see `startServer`).
 *
 * @note Ahead of Express in the command: Express's own handling costs
 * about a third of the command's time an answer (npm run bench), and the
 * sandbox's paths need none of it.
 *
 * @example
 * const entry = sandboxEntry(sandbox, { quiet: true })
 * createServer((request, response) => entry.handle(request, response, () => notFound(request, response)))
 */
export function sandboxEntry(
  sandbox: SandboxWithHandlers,
  options: EntryOptions = {},
  store?: CountsErrors,
): SandboxEntry {
  const log = requestLog(options, sandbox)
  const access = controlAccess(sandbox.options.adminToken, options)
  const server: DispatchContext = {
    sessions: sandbox.sessions,
    proxy: sandbox.proxy,
    planes: [consolePlane()],
    access,
  }
  // prom-client is imported here only, and only with the metrics on. Until it is, requests wait for it (an app
  // listening at once), so that every answer is counted and /_sandbox/metrics is never a 404.
  let loading: Promise<void> | undefined =
    options.metrics === false
      ? undefined
      : import('./metrics.js').then(({ serverMetrics }) => {
          const metrics = serverMetrics(sandbox, store)
          server.rootPlanes = [metrics.plane]
          server.observe = metrics.observe
          loading = undefined
        })
  const ready = loading ?? Promise.resolve()
  // Named, not spread: every request makes its context, and `server` changes shape once the metrics are in.
  const dispatchNow = (request: IncomingMessage, url: URL) =>
    dispatch(sandbox, fetchRequestOf(request, url), {
      sessions: server.sessions,
      proxy: server.proxy,
      planes: server.planes,
      rootPlanes: server.rootPlanes,
      observe: server.observe,
      access: server.access,
      peer: request.socket.remoteAddress,
      url,
    })
  const dispatchOver = (request: IncomingMessage, url: URL) =>
    loading ? loading.then(() => dispatchNow(request, url)) : dispatchNow(request, url)

  const handle: SandboxEntry['handle'] = (request, response, next) => {
    log?.(request, response)
    const url = urlOf(request)
    // Below the sandbox's base URL, when it has a path (`createApp` of a sandbox at `http://host/mock`): the path
    // CORS, the guard and the methods fetch cannot carry are judged by.
    const below = url ? sandboxPath(sandbox, url, sandbox.sessions) : undefined
    const path = below ?? pathOf(request, url)

    // CORS: the headers every answer carries, written with it; a preflight answered here.
    const cors = corsHeaders(access, request, path)

    // HTTP itself, before any path: Node leaves these to the listener (see startServer), so they are in the envelope.
    const refusal = refusedByHttp(request)
    if (refusal) return sendReply(response, errorReply(sandbox, newRequestId(), refusal), cors)
    if (answeredPreflight({ sandbox, access }, request, response, path, cors)) return

    // Not the sandbox's (below its base URL, if it has one): no Fetch request is made for it.
    if (url ? below === undefined : !isSandboxPath(path, true)) return onward(response, cors, next)

    // What a Fetch request cannot carry: a method (as its plane answers a method it does not take), a target.
    if (OUTSIDE_FETCH.has(request.method!)) {
      // Who may reach the control plane first, as the dispatch does for every other method.
      const refused = access.refusal(request.socket.remoteAddress, request.headers, path)
      if (refused) return sendReply(response, errorReply(sandbox, newRequestId(), refused), cors)
      return sendReply(response, methodOutsideFetch(sandbox, request.method!, path), cors)
    }
    if (!url) {
      const error = new ApiError('invalid_parameter', 'The request target is no path or URL.')
      return sendReply(response, errorReply(sandbox, newRequestId(), error), cors)
    }

    // The dispatch, with the server's context; no reply (a sandbox whose base URL is elsewhere): the next handler's.
    dispatchOver(request, url)
      .then((reply) => (reply ? sendReply(response, reply, cors) : onward(response, cors, next)))
      .catch((error: unknown) => {
        console.error('[call-sandbox] unexpected server error:', error)
        sendReply(response, errorReply(sandbox, newRequestId(), unexpected(error)), cors)
      })
  }
  return { handle, ready }
}

/** A request the sandbox does not answer, to the next handler (Express's reference, its 404), with its CORS headers. */
function onward(response: ServerResponse, cors: HeaderPairs, next: () => void): void {
  setHeaders(response, cors)
  next()
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
