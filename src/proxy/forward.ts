import { ApiError } from '../schemas/ApiError.js'
import type { UpstreamSend } from './proxyOptions.js'

/** What the upstream answered. */
export interface Forwarded {
  status: number
  /**
   * Its headers, less those of the hop between the proxy and the upstream, and its CORS headers (the proxy's server has
   * its own).
   */
  headers: Headers
  /** Its body as sent (any Content-Encoding undone). */
  bytes: Uint8Array<ArrayBuffer>
}

export interface Forwarding {
  /** How to send it: with the global fetch, or node:http. */
  send: UpstreamSend
  /** The upstream URL: its base, the path, the query as sent. */
  target: string
  method: string
  headers: Headers
  body: Uint8Array<ArrayBuffer> | undefined
  timeoutMs: number
  /** This proxy's entry in `Via`, by which it knows a request it sent that came back to it. */
  via: string
}

/**
 * Headers of one hop, not of the request: the proxy's hop to the upstream
 * has its own. `Accept-Encoding` too: the proxy reads the body, so it asks
 * for it uncompressed.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-authenticate',
  'host',
  'content-length',
  'expect',
  'accept-encoding',
])
/** The names of the global symbols msw 2's interceptors (of fetch, of node:http) are kept under while they listen. */
const INTERCEPTORS = new Set(['fetch', 'fetch-interceptor', 'client-request-interceptor'])
/**
 * msw 3's interceptors take every socket Node opens, fetch's and node:http's, through this one, kept in a global
 * registry.
 */
const SOCKET_INTERCEPTOR = Symbol.for('socket-interceptor')
/** Of the answer: the body has been decoded, so its encoding and length no longer describe what goes back. */
const DECODED = new Set(['content-encoding', 'content-length'])

/**
 * Sends a request to the upstream as it came (method, path, query, its
 * headers with `Authorization`, body) and reads the whole answer, within
 * `timeoutMs`. What gets no answer throws the contract's envelope: 504
 * `upstream_timeout`, or 502 `upstream_unreachable` naming why (refused,
 * no such host, TLS, the connection dropped).
 *
 * @example
 * const answer = await forward({ send: sendWithFetch, target: 'https://api.example.com/v1/me', method: 'GET', headers,
 * body: undefined, timeoutMs: 10_000, via })
 */
export async function forward({ send, target, method, headers, body, timeoutMs, via }: Forwarding): Promise<Forwarded> {
  const sent = new Headers()
  for (const [name, value] of headers) if (!HOP_BY_HOP.has(name)) sent.append(name, value)
  sent.set('accept-encoding', 'identity')
  sent.set('via', [headers.get('via'), via].filter(Boolean).join(', '))
  // @note In a test run whose msw intercepts requests (setupServer), this one must reach the network, not the sandbox's
  // own handlers.
  if (isIntercepted()) sent.append('accept', 'msw/passthrough')
  // @note A timer of its own, not AbortSignal.timeout(), whose signal is made transferable at a cost of about 0.1 ms a
  // request.
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), timeoutMs)
  ;(timer as { unref?: () => void }).unref?.()
  try {
    const reply = await send({ url: target, method, headers: sent, body, signal: controller.signal })
    const answered = new Headers()
    // CORS is between the client and the proxy, whose server answers it for its own origin.
    for (const [name, value] of reply.headers)
      if (!HOP_BY_HOP.has(name) && !DECODED.has(name) && !name.startsWith('access-control-'))
        answered.append(name, value)
    return { status: reply.status, headers: answered, bytes: reply.bytes }
  } catch (error) {
    const { origin } = new URL(target)
    if (controller.signal.aborted)
      throw new ApiError(
        'upstream_timeout',
        `The upstream ${origin} did not answer within ${timeoutMs} ms (--proxy-timeout).`,
      )
    throw new ApiError('upstream_unreachable', `The upstream ${origin} could not be reached: ${reasonOf(error)}.`)
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Whether msw intercepts requests in this process (a test run's setupServer).
 *
 * @note Neither msw says so in its API. The @mswjs/interceptors of msw 2 keep
 * each interceptor under a global symbol while it listens, `Symbol.for(…)` in
 * the versions msw 2.12 and later bring, a `Symbol(…)` of their own in those
 * of msw 2.11, hence by the symbol's name. Those of msw 3 (0.45 and later)
 * keep none there: their socket interceptor, in the registry they share on
 * `globalThis`, is `ACTIVE` while any of them listens.
 */
function isIntercepted(): boolean {
  const registry = (globalThis as { __MSW_INTERCEPTORS_REGISTRY?: Map<symbol, { readyState?: string }> })
    .__MSW_INTERCEPTORS_REGISTRY
  if (registry?.get(SOCKET_INTERCEPTOR)?.readyState === 'ACTIVE') return true
  return Object.getOwnPropertySymbols(globalThis).some((symbol) => INTERCEPTORS.has(symbol.description ?? ''))
}

/** Why fetch failed, in words: undici puts the system's error in `cause`. */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause
  const code = cause?.code ?? ''
  if (code === 'ECONNREFUSED') return 'the connection was refused (ECONNREFUSED)'
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `no such host (${code})`
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET')
    return `the connection was closed before the answer was complete (${code})`
  const openssl = /SSL routines:[^:]*:([^:]+)/.exec(cause?.message ?? '')?.[1]
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code) || openssl)
    return `TLS failed (${[code, openssl].filter(Boolean).join(': ')})`
  const message = cause?.message ?? (error instanceof Error ? error.message : String(error))
  return code ? `${message} (${code})` : message
}
