import type { IncomingMessage, ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import type { Reply } from '../http/respond.js'
import { sendReply } from './httpAnswers.js'

/** Replies to a Fetch `Request`, or `undefined` for a request it does not take. */
export type FetchReply = (request: Request) => Promise<Reply | undefined>

/**
 * Answers a Node request with a function from a Fetch `Request` to a reply:
 * the request as Fetch sees it (its body streamed, never buffered here), the
 * reply written out in one piece. False when there was no reply, and
 * nothing was written.
 *
 * @note The server's own bridge, in place of `@mswjs/http-middleware`
 * (last release 0.10.3): that one calls msw 2's `handleRequest`, which msw 3
 * removed, and streams every answer through a Node stream. This one knows no
 * msw: the server hands it the sandbox's dispatch (`reply`), the function
 * behind the sandbox's msw handler too.
 *
 * @example
 * await fetchExchange(request, response, url, (fetchRequest) => reply(sandbox, fetchRequest))
 */
export async function fetchExchange(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  replyTo: FetchReply,
): Promise<boolean> {
  const replied = await replyTo(fetchRequestOf(request, url))
  if (!replied) return false
  sendReply(response, replied)
  return true
}

/** A Node request as a Fetch `Request`: its headers as sent, its body a web stream (none for GET and HEAD). */
function fetchRequestOf(request: IncomingMessage, url: URL): Request {
  const withBody = request.method !== 'GET' && request.method !== 'HEAD'
  return new Request(url, {
    method: request.method,
    headers: headersOf(request),
    body: withBody ? (Readable.toWeb(request) as ReadableStream) : undefined,
    duplex: 'half',
  } as RequestInit)
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
