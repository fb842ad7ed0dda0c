import type { IncomingMessage } from 'node:http'
import { Readable } from 'node:stream'
import type { FetchRequest } from '../http/FetchRequest.js'

/**
 * A Node request as the sandbox's dispatch reads it: its headers as sent,
 * its body a web stream still arriving, never buffered here. A GET or a HEAD
 * has no body, and is no `Request`: its URL, method and headers are all the
 * dispatch reads of it (see `FetchRequest`).
 *
 * @note The server's own bridge, in place of `@mswjs/http-middleware`
 * (last release 0.10.3): that one calls msw 2's `handleRequest`, which msw 3
 * removed, and streams every answer through a Node stream. This one knows no
 * msw: the server's entry hands the request to the sandbox's dispatch, the
 * function behind the sandbox's msw handler too, and writes its reply out
 * with `sendReply`.
 *
 * @example
 * const reply = await dispatch(sandbox, fetchRequestOf(request, url), context)
 */
export function fetchRequestOf(request: IncomingMessage, url: URL): FetchRequest {
  const { method = 'GET' } = request
  // As a Request's own: the URL as it serializes it, which is the parsed URL's href.
  if (method === 'GET' || method === 'HEAD')
    return { url: url.href, method, headers: headersOf(request), body: null, bodyUsed: false }
  return new Request(url, {
    method,
    headers: headersOf(request),
    body: arrivingBody(request),
    duplex: 'half',
  } as RequestInit)
}

/** How to end the read of each body still arriving with an error (see `failArrival`). */
const arrivals = new WeakMap<IncomingMessage, (error: Error) => void>()

/**
 * Ends the read of a request's body, still arriving, with `error`: the
 * sandbox's answer to the request is then its error (the server's request
 * timeout). False when no read of that body is under way or to come.
 *
 * @example
 * failArrival(request, new ApiError('request_timeout', 'The request did not arrive in time.'))
 */
export function failArrival(request: IncomingMessage, error: Error): boolean {
  const fail = arrivals.get(request)
  if (!fail) return false
  arrivals.delete(request)
  fail(error)
  return true
}

/**
 * A request's body as a web stream that `failArrival` can end with an error.
 *
 * @note Not `Readable.toWeb(request)` alone: erroring that one destroys the
 * request, and with it the socket the answer to it must go out on.
 */
function arrivingBody(request: IncomingMessage): ReadableStream<Uint8Array> {
  const source = (Readable.toWeb(request) as ReadableStream<Uint8Array>).getReader()
  let failed = false
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        arrivals.set(request, (error) => {
          failed = true
          controller.error(error)
        })
      },
      async pull(controller) {
        const { done, value } = await source.read()
        if (failed) return
        if (done) {
          arrivals.delete(request)
          controller.close()
        } else controller.enqueue(value)
      },
      cancel(reason) {
        arrivals.delete(request)
        return source.cancel(reason)
      },
    },
    { highWaterMark: 0 },
  )
}

/**
 * Every header as sent, a repeated one joined with a comma as Fetch joins it (Node's `headers` keeps only the first of
 * some, Authorization among them).
 */
function headersOf(request: IncomingMessage): Headers {
  const headers = new Headers()
  const raw = request.rawHeaders
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!)
  return headers
}
