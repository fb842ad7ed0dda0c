import { ApiError } from '../schemas/ApiError.js'

/** What the upstream answered. */
export interface UpstreamAnswer {
  status: number
  /** Its headers, less those of the hop between the proxy and the upstream, and its CORS headers (the proxy's server has its own). */
  headers: Headers
  /** Its body as sent (fetch has undone any Content-Encoding). */
  bytes: Uint8Array<ArrayBuffer>
}

export interface Forwarding {
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
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-authenticate', 'host', 'content-length', 'expect', 'accept-encoding']
/** Of the answer: fetch has decoded the body, so its encoding and length no longer describe what goes back. */
const DECODED = ['content-encoding', 'content-length']

/**
 * Sends a request to the upstream as it came (method, path, query, its
 * headers with `Authorization`, body) and reads the whole answer, within
 * `timeoutMs`. What gets no answer throws the contract's envelope: 504
 * `upstream_timeout`, or 502 `upstream_unreachable` naming why (refused,
 * no such host, TLS, the connection dropped).
 *
 * @example
 * const answer = await forward({ target: 'https://api.example.com/v1/me', method: 'GET', headers, body: undefined, timeoutMs: 10_000, via })
 */
export async function forward({ target, method, headers, body, timeoutMs, via }: Forwarding): Promise<UpstreamAnswer> {
  const sent = new Headers(headers)
  for (const name of HOP_BY_HOP) sent.delete(name)
  sent.set('accept-encoding', 'identity')
  sent.set('via', [headers.get('via'), via].filter(Boolean).join(', '))
  // @note In a test run whose msw intercepts fetch (setupServer), this request must reach the network, not the sandbox's own handlers.
  if ((globalThis as Record<symbol, unknown>)[Symbol.for('fetch-interceptor')] !== undefined) sent.append('accept', 'msw/passthrough')
  const signal = AbortSignal.timeout(timeoutMs)
  try {
    const response = await fetch(target, { method, headers: sent, body, redirect: 'manual', signal })
    const bytes = new Uint8Array(await response.arrayBuffer())
    const answered = new Headers(response.headers)
    for (const name of [...HOP_BY_HOP, ...DECODED]) answered.delete(name)
    // CORS is between the client and the proxy, whose server answers it for its own origin.
    for (const name of [...answered.keys()]) if (name.startsWith('access-control-')) answered.delete(name)
    return { status: response.status, headers: answered, bytes }
  } catch (error) {
    const { origin } = new URL(target)
    if (signal.aborted) throw new ApiError('upstream_timeout', `The upstream ${origin} did not answer within ${timeoutMs} ms (--proxy-timeout).`)
    throw new ApiError('upstream_unreachable', `The upstream ${origin} could not be reached: ${reasonOf(error)}.`)
  }
}

/** Why fetch failed, in words: undici puts the system's error in `cause`. */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause
  const code = cause?.code ?? ''
  if (code === 'ECONNREFUSED') return 'the connection was refused (ECONNREFUSED)'
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `no such host (${code})`
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return `the connection was closed before the answer was complete (${code})`
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return `TLS failed (${code})`
  const message = cause?.message ?? (error instanceof Error ? error.message : String(error))
  return code ? `${message} (${code})` : message
}
