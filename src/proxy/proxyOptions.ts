import { baseUrlOf } from './baseUrl.js'
/** What proxy mode takes: `createSandbox({ proxy })`, `--proxy`. */
export interface ProxyOptions {
  /**
   * The real service's base URL (an origin, and a path prefix if it has one): `/v1/calls` goes to
   * `{upstream}/v1/calls`.
   */
  upstream: string
  /**
   * How long the upstream may take to answer, headers and body, in milliseconds; then 504 `upstream_timeout`. Default
   * 10,000.
   */
  timeoutMs?: number
  /**
   * Keep what the upstream answered, to start a sandbox from later (`proxy.recording()`, `--record`). Default false.
   */
  record?: boolean
  /**
   * How the proxy sends a request to the upstream; default `sendWithFetch` (the standalone server gives one of
   * node:http, quicker).
   */
  send?: UpstreamSend
}

/** A request to the upstream, as the proxy sends it. */
export interface UpstreamRequest {
  url: string
  method: string
  headers: Headers
  body: Uint8Array<ArrayBuffer> | undefined
  /** Aborted when the upstream takes too long: the send then rejects. */
  signal: AbortSignal
}

/** What came back, whole: status, headers as sent, body decoded of any Content-Encoding. */
export interface UpstreamReply {
  status: number
  headers: Headers
  bytes: Uint8Array<ArrayBuffer>
}

/** Sends one request to the upstream; fails as fetch does, with a TypeError whose `cause` is the system's error. */
export type UpstreamSend = (request: UpstreamRequest) => Promise<UpstreamReply>

export interface ResolvedProxyOptions {
  /** Without a trailing slash. */
  upstream: string
  timeoutMs: number
  record: boolean
  send: UpstreamSend
}

export const DEFAULT_UPSTREAM_TIMEOUT_MS = 10_000
const MAX_UPSTREAM_TIMEOUT_MS = 600_000

/**
 * Sends with the global fetch, as it is at the time: a test's msw may
 * have put its own in place since.
 *
 * @example
 * new UpstreamProxy({ upstream: 'https://api.example.com', send: sendWithFetch })
 */
export const sendWithFetch: UpstreamSend = async ({ url, method, headers, body, signal }) => {
  const response = await globalThis.fetch(url, { method, headers, body, redirect: 'manual', signal })
  return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) }
}

/**
 * Checks proxy mode's options and fills in the defaults; a URL alone is
 * the upstream. A wrong option throws a TypeError that names it.
 *
 * @example
 * resolveProxyOptions('https://api.example.com') // { upstream: 'https://api.example.com', timeoutMs: 10000, record:
 * false, send: sendWithFetch }
 */
export function resolveProxyOptions(options: string | ProxyOptions): ResolvedProxyOptions {
  const {
    upstream,
    timeoutMs = DEFAULT_UPSTREAM_TIMEOUT_MS,
    record = false,
    send = sendWithFetch,
  } = typeof options === 'string' ? { upstream: options } : options
  // A file this proxy records names its upstream: keys go in Authorization, never in the URL.
  const base = baseUrlOf(upstream, {
    name: 'proxy',
    what: "the upstream's absolute URL",
    example: 'https://api.example.com',
    credentials: "the upstream gets each request's own Authorization.",
  })
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_UPSTREAM_TIMEOUT_MS) {
    throw new TypeError(
      `proxy timeoutMs must be an integer from 1 to ${MAX_UPSTREAM_TIMEOUT_MS}; got ${String(timeoutMs)}.`,
    )
  }
  if (typeof send !== 'function') throw new TypeError('proxy send must be a function, such as sendWithFetch.')
  return { upstream: base, timeoutMs, record: record === true, send }
}
