import { type IncomingMessage, ServerResponse } from 'node:http'
import { bearerToken } from '../http/bearerToken.js'
import type { Reply } from '../http/respond.js'
import { credentialPairs, shownCredential, shownUrl } from '../sandbox/credentials.js'
import { echoed } from '../text/echoed.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import { type Scrubber, scrubberOf } from '../sandbox/Scrubber.js'

/*
 * What the standalone server does alike for every request it answers, in
 * its one entry (sandboxEntry.ts), in Express (createApp.ts) or ahead of it.
 */

/** Methods a fetch `Request` cannot be made with, so MSW never sees them. */
export const OUTSIDE_FETCH = new Set(['CONNECT', 'TRACE', 'TRACK'])

/** Where the request log goes: a line a request, or nothing when quiet. */
export interface LogOptions {
  /** No request log. */
  quiet?: boolean
  /** Where the request log goes; default stdout. */
  log?: (line: string) => void
  /** `text` (the default): a line for people; `json`: one JSON object a line, for machines (`--log json`). */
  logFormat?: 'text' | 'json'
}

/**
 * The request log: a line an answer, written once it has gone out; undefined when quiet. `sandbox`'s admin token is
 * what its lines never show.
 */
export function requestLog({ quiet, log, logFormat = 'text' }: LogOptions, sandbox: Sandbox): RequestLog | undefined {
  if (quiet) return undefined
  const write = log ?? ((line: string) => process.stdout.write(`${line}\n`))
  return (request, response) => logWhenFinished(request, response, write, logFormat, sandbox)
}

export type RequestLog = (request: IncomingMessage, response: ServerResponse) => void

/**
 * Writes `GET /v1/calls?limit=2 200 4.210 ms req_…` once the answer has gone
 * out: method, path as sent (a credential in its query as `shownUrl` shows
 * it, any secret as the value rule, `Scrubber`, shows it), status, time to the end of the answer, request id. As JSON: those, the
 * session, the time and the key as `shownCredential` shows it.
 */
function logWhenFinished(
  request: IncomingMessage,
  response: ServerResponse,
  log: (line: string) => void,
  format: 'text' | 'json',
  sandbox: Sandbox,
): void {
  const started = performance.now()
  // Express, where an app is mounted under a path, keeps the whole path in originalUrl.
  const sent = (request as { originalUrl?: string }).originalUrl ?? request.url ?? '/'
  // Cut as an error's echo is: a 60 KB path makes no 60 KB log line.
  const path = echoed(logScrubber(sandbox, request, sent).text(shownUrl(sent, sandbox.options.adminToken)))
  // 'close', not 'finish': a request whose client went away before its answer (a slow body, a `Prefer: delay`) is
  // written too, with no status.
  response.once('close', () => {
    const ms = performance.now() - started
    const requestId = response.getHeader('x-request-id') ?? sentIds.get(response) ?? null
    const status = response.writableFinished ? response.statusCode : null
    if (format === 'text') {
      log(`${request.method} ${path} ${status ?? '- (closed)'} ${ms.toFixed(3)} ms ${requestId ?? '-'}`)
      return
    }
    const token = bearerToken(request.headers.authorization ?? null)
    const session = /^\/sessions\/([^/?]+)/.exec(path)?.[1] ?? 'default'
    log(
      JSON.stringify({
        time: new Date().toISOString(),
        request_id: requestId,
        session,
        method: request.method,
        path,
        status,
        duration_ms: Math.round(ms * 1000) / 1000,
        key: token === null ? null : shownCredential(token, sandbox.options.adminToken),
      }),
    )
  })
}

/** The value rule for a request the log writes: the secrets `sandbox` knows, and those the request carried. */
function logScrubber(sandbox: Sandbox, request: IncomingMessage, sent: string): Scrubber {
  const headers: [string, string][] = []
  for (const [name, value] of Object.entries(request.headers)) {
    if (Array.isArray(value)) for (const each of value) headers.push([name, each])
    else if (value !== undefined) headers.push([name, value])
  }
  const start = sent.indexOf('?')
  return scrubberOf(sandbox, headers, start === -1 ? undefined : credentialPairs(sent.slice(start + 1)))
}

/** Headers as name, value, name, value, in the order they go out: `sendReply`'s first ones (CORS), `setHeaders`. */
export type HeaderPairs = readonly string[]

const NO_HEADERS: HeaderPairs = Object.freeze([])

/**
 * The request id each answer written by `sendReply` went out with, for the request log: an answer whose headers are
 * written at once (below) keeps none that `getHeader` could read.
 */
const sentIds = new WeakMap<ServerResponse, string>()

/**
 * Writes a reply out in one piece: status, `first` (the answer's CORS headers), the reply's headers (Set-Cookie once
 * per cookie), body.
 *
 * @note A body to send, on a response that has no header yet (the command's server): its headers are handed to
 * `writeHead` in one list, which Node writes as they are, and its length is set here. Each `setHeader` is checked and
 * kept in an object of its own, a cost every answer paid twice over (npm run bench). A response that has headers
 * already (a user's Express middleware set one), a HEAD, a 204 or 304 and an empty body take the headers one by one,
 * as Node merges them, with its own Content-Length or none, as before.
 *
 * @example
 * sendReply(response, errorReply(sandbox, newRequestId(), new ApiError('not_found', 'No endpoint at /v2.')))
 */
export function sendReply(
  response: ServerResponse,
  { status, headers, body, dropped }: Reply,
  first: HeaderPairs = NO_HEADERS,
): void {
  // A fault rule's network error: the socket closes with nothing written, as a server that fell over would. The
  // request id is set, never sent, for the log line, which then names the journal's entry.
  if (dropped) {
    response.setHeader('X-Request-Id', headers.get('x-request-id') ?? '-')
    response.destroy()
    return
  }
  const oneByOne =
    body === null || status === 204 || status === 304 || response.req.method === 'HEAD' || hasHeaders(response)
  const pairs = [...first]
  // At once, the length is the body's own, counted here (an upstream's answer had its own header).
  headers.forEach((value, name) => {
    if (oneByOne || name !== 'content-length') pairs.push(name, value)
  })
  if (oneByOne) {
    response.statusCode = status
    setHeaders(response, pairs)
    if (body === null) return void response.end()
    if (body.length === 1) return void response.end(bufferOf(body[0]!))
    // Several chunks (a kept page and its meta) go out in one write: Node counts no length for them, nor for a HEAD.
    if (response.req.method !== 'HEAD') response.setHeader('Content-Length', lengthOf(body))
  } else {
    pairs.push('Content-Length', String(lengthOf(body)))
    response.writeHead(status, pairs)
    const requestId = headers.get('x-request-id')
    if (requestId !== null) sentIds.set(response, requestId)
  }
  response.cork()
  for (const chunk of body) response.write(bufferOf(chunk))
  response.end()
  response.uncork()
}

/** Sets headers on a response: `Vary` and `Set-Cookie` added to those it has, any other in place of its own. */
export function setHeaders(response: ServerResponse, pairs: HeaderPairs): void {
  for (let i = 0; i < pairs.length; i += 2) {
    const name = pairs[i]!
    const lower = name.toLowerCase()
    if (lower === 'set-cookie' || lower === 'vary') response.appendHeader(name, pairs[i + 1]!)
    else response.setHeader(name, pairs[i + 1]!)
  }
}

/**
 * Whether a response is not Node's own to write at once: it has headers already, or middleware wrapped its
 * `writeHead` (on-headers before 1.1.0, as older morgan, compression and express-session use, reads a list as pairs).
 */
function hasHeaders(response: ServerResponse): boolean {
  return response.writeHead !== ServerResponse.prototype.writeHead || response.getHeaderNames().length > 0
}

function lengthOf(body: readonly Uint8Array[]): number {
  let length = 0
  for (const chunk of body) length += chunk.byteLength
  return length
}

function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}
