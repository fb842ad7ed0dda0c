/** What proxy mode takes: `createSandbox({ proxy })`, `createApp(sandbox, { proxy })`, `--proxy`. */
export interface ProxyOptions {
  /** The real service's base URL (an origin, and a path prefix if it has one): `/v1/calls` goes to `{upstream}/v1/calls`. */
  upstream: string
  /** How long the upstream may take to answer, headers and body, in milliseconds; then 504 `upstream_timeout`. Default 10,000. */
  timeoutMs?: number
  /** Keep what the upstream answered, to start a sandbox from later (`proxy.recording()`, `--record`). Default false. */
  record?: boolean
}

export interface ResolvedProxyOptions {
  /** Without a trailing slash. */
  upstream: string
  timeoutMs: number
  record: boolean
}

export const DEFAULT_UPSTREAM_TIMEOUT_MS = 10_000
const MAX_UPSTREAM_TIMEOUT_MS = 600_000

/**
 * Checks proxy mode's options and fills in the defaults; a URL alone is
 * the upstream. A wrong option throws a TypeError that names it.
 *
 * @example
 * resolveProxyOptions('https://api.example.com') // { upstream: 'https://api.example.com', timeoutMs: 10000, record: false }
 */
export function resolveProxyOptions(options: string | ProxyOptions): ResolvedProxyOptions {
  const { upstream, timeoutMs = DEFAULT_UPSTREAM_TIMEOUT_MS, record = false } = typeof options === 'string' ? { upstream: options } : options
  let url: URL
  try {
    url = new URL(upstream)
  } catch {
    throw new TypeError(`proxy must be the upstream's absolute URL, such as https://api.example.com; got ${String(upstream)}.`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`proxy must be an http: or https: URL; got ${upstream}.`)
  // @note fetch refuses a URL with credentials, and a file this proxy records names its upstream: keys go in Authorization.
  if (url.username || url.password) throw new TypeError('proxy must not carry a user or password: the upstream gets each request\'s own Authorization.')
  if (url.search || url.hash) throw new TypeError(`proxy must not have a query or fragment; got ${upstream}.`)
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_UPSTREAM_TIMEOUT_MS) {
    throw new TypeError(`proxy timeoutMs must be an integer from 1 to ${MAX_UPSTREAM_TIMEOUT_MS}; got ${String(timeoutMs)}.`)
  }
  return { upstream: `${url.origin}${url.pathname.replace(/\/+$/, '')}`, timeoutMs, record: record === true }
}
