import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import { belowRoot, isControlPath, LIVENESS_PATH, READINESS_PATH } from '../http/paths.js'
import { ApiError } from '../schemas/ApiError.js'
import { plainHostName } from './httpRefusals.js'

/**
 * Who may call the control plane of a server without an admin token, beside this machine's own tools (curl, a test)
 * and the sandbox's own pages (its console).
 */
export interface ControlAccessOptions {
  /**
   * Host names the control plane answers to beside loopback ones (`--allowed-hosts`): `sandbox.test`, or `.sandbox.test` for it and every subdomain; `'all'` turns the check off.
   */
  allowedHosts?: readonly string[] | 'all'
  /** Origins whose pages may call the control plane and read its answers (`--allowed-origins`): `http://localhost:5173`. */
  allowedOrigins?: readonly string[]
}

/** Who may call the control plane, as one server entry applies it. */
export interface ControlAccess {
  /**
   * Why a request to `path` (below the server's root), from the connection's `peer` address with these headers (as
   * Node or Fetch holds them), may not reach the control plane: 403 `client_not_allowed`, `host_not_allowed` or
   * `origin_not_allowed`. Undefined when it may, and for every path outside the control plane.
   */
  refusal(peer: string | undefined, headers: HeaderSource, path: string): ApiError | undefined
  /** What `Access-Control-Allow-Origin` an answer to `path` says to this request's page; undefined: nothing. */
  allowOrigin(request: IncomingMessage, path: string): string | undefined
}

/** A request's headers, as Node's request or a Fetch `Request` holds them. */
export type HeaderSource = IncomingHttpHeaders | Headers

/** One header's value: Node and Fetch alike join a repeated Origin or Sec-Fetch-Site with a comma. */
function headerOf(headers: HeaderSource, name: 'host' | 'origin' | 'sec-fetch-site'): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined
  const value = headers[name]
  return Array.isArray(value) ? value.join(', ') : value
}

/** The paths of the control plane that reveal nothing and change nothing: a probe's, answered whoever asks. */
const PROBES = new Set([LIVENESS_PATH, READINESS_PATH])

/** What `Sec-Fetch-Site` (Fetch Metadata, which every current browser sends) says of another site's page's request. */
const FROM_ANOTHER_SITE = new Set(['cross-site', 'same-site'])

/** How long a header's value may be in an error message. */
const QUOTED_LENGTH = 100

/**
 * The control plane's guard for the server's entry (`sandboxEntry`), which the dispatch applies. With an admin
 * token, the token is the guard: no peer, Host or Origin is checked, and any page may read what it is answered, as
 * with an API key (a page that sends the token sends Authorization, which is preflighted). Without one, the control plane answers only
 * connections from this machine (a loopback peer address, which no header can fake), sent to its own names, from
 * tools and pages of its own origin, and the hosts and origins `options` allow; its answers carry CORS headers for
 * an allowed origin only. The API, `/openapi.json` and the probes stay open to every client.
 *
 * @example
 * const access = controlAccess(sandbox.options.adminToken, { allowedOrigins: ['http://localhost:5173'] })
 * access.refusal(request.socket.remoteAddress, request.headers, '/_sandbox/reset') // undefined, or 403 origin_not_allowed
 */
export function controlAccess(adminToken: string | undefined, options: ControlAccessOptions = {}): ControlAccess {
  const hosts = options.allowedHosts === 'all' ? 'all' : (options.allowedHosts ?? []).map(allowedHostOf)
  const origins = new Set((options.allowedOrigins ?? []).map(allowedOriginOf))
  if (adminToken !== undefined) {
    if (options.allowedHosts !== undefined || options.allowedOrigins !== undefined)
      throw new Error(
        'allowed hosts and origins are for a server without an admin token: with one (--admin-token), the token is what the control plane checks, whatever the host or the page. Give one or the other.',
      )
    return { refusal: () => undefined, allowOrigin: () => '*' }
  }
  /** The origin as browsers serialise it, when it is allowed: what an answer names in Access-Control-Allow-Origin. */
  const allowedOrigin = (origin: string | undefined) => {
    const serialised = origin === undefined ? undefined : originOf(origin)
    return serialised !== undefined && origins.has(serialised) ? serialised : undefined
  }
  return {
    refusal(peer, headers, path) {
      if (!isGuarded(path)) return undefined
      if (!isLoopbackAddress(peer)) return clientRefusal(peer)
      const host = headerOf(headers, 'host')
      const origin = headerOf(headers, 'origin')
      // No Host at all is HTTP/1.0 from a tool: a browser always sends one.
      if (hosts !== 'all' && host !== undefined && !isOwnHost(host, hosts)) return hostRefusal(host)
      if (allowedOrigin(origin) !== undefined) return undefined
      const site = headerOf(headers, 'sec-fetch-site')
      if (site !== undefined && FROM_ANOTHER_SITE.has(site)) return originRefusal(origin, site)
      if (origin !== undefined && !isOwnOrigin(origin, host)) return originRefusal(origin, site)
      return undefined
    },
    allowOrigin(request, path) {
      if (!isControlPath(belowRoot(path))) return '*'
      return allowedOrigin(request.headers.origin)
    },
  }
}

/**
 * `--allowed-hosts`: host names, comma-separated, or `all`.
 *
 * @example
 * parseAllowedHosts('sandbox.test,.dev.test') // ['sandbox.test', '.dev.test']
 */
export function parseAllowedHosts(text: string): string[] | 'all' {
  if (text.trim() === 'all') return 'all'
  const hosts = listOf(text)
  for (const host of hosts) allowedHostOf(host)
  return hosts
}

/**
 * `--allowed-origins`: origins, comma-separated.
 *
 * @example
 * parseAllowedOrigins('http://localhost:5173') // ['http://localhost:5173']
 */
export function parseAllowedOrigins(text: string): string[] {
  return listOf(text).map(allowedOriginOf)
}

function listOf(text: string): string[] {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
  if (items.length === 0) throw new Error('expected a comma-separated list; got nothing.')
  return items
}

/** Whether the guard applies to a path: the control plane's, at the bare root or a session's, but for its probes. */
function isGuarded(path: string): boolean {
  const below = belowRoot(path)
  return isControlPath(below) && !PROBES.has(below)
}

/** One allowed host as the guard compares it: a host name, lower case; with its leading dot, a domain and its subdomains. */
interface AllowedHost {
  name: string
  subdomains: boolean
}

function allowedHostOf(entry: string): AllowedHost {
  const subdomains = entry.startsWith('.')
  const name = hostNameOf(subdomains ? entry.slice(1) : entry)
  if (name === undefined || entry === 'true')
    throw new Error(
      `an allowed host is a host name (sandbox.test), a domain and its subdomains (.sandbox.test), or all; got ${quoted(entry)}.`,
    )
  return { name, subdomains }
}

function allowedOriginOf(entry: string): string {
  const url = urlOf(entry)
  if (url === undefined || url.origin === 'null' || url.href !== `${url.origin}/`) {
    const anyOrigin =
      entry === '*' ? ' For any page, give an admin token instead (--admin-token): pages must know it.' : ''
    throw new Error(
      `an allowed origin is a page's scheme, host and port, as its Origin header says (http://localhost:5173); got ${quoted(entry)}.${anyOrigin}`,
    )
  }
  return url.origin
}

/** A host name alone (no port, no path), as a URL writes it; undefined for anything else. */
function hostNameOf(text: string): string | undefined {
  const url = urlOf(`http://${text}`)
  return url && url.host === url.hostname && url.href === `http://${url.host}/` ? url.hostname : undefined
}

/** An origin as browsers write it (`http://localhost:5173`), or undefined for `null` and what is no URL. */
function originOf(text: string): string | undefined {
  const origin = urlOf(text)?.origin
  return origin === 'null' ? undefined : origin
}

function urlOf(text: string): URL | undefined {
  try {
    return new URL(text)
  } catch {
    return undefined
  }
}

/**
 * Whether a connection's peer is this machine: 127.0.0.0/8, ::1, or 127.0.0.0/8 mapped into IPv6. No address (a
 * socket already closed, a pipe) is not.
 */
function isLoopbackAddress(address: string | undefined): boolean {
  return address !== undefined && (address === '::1' || /^(?:::ffff:)?127\.\d+\.\d+\.\d+$/i.test(address))
}

/**
 * Whether a Host names this machine: a loopback name or address, or an allowed host. Anything else is a name a page
 * of a rebound domain (DNS rebinding) would send. The peer is loopback already, so the server's other addresses
 * need no rule of their own: a client of this machine reaches it at a loopback one.
 */
function isOwnHost(host: string, allowed: readonly AllowedHost[]): boolean {
  // A name with its root's trailing dot (`localhost.`) is the same name.
  const name = plainHostName(host)?.replace(/\.$/, '')
  if (name === undefined) return false
  if (name === 'localhost' || name.endsWith('.localhost') || name === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(name))
    return true
  return allowed.some((entry) => name === entry.name || (entry.subdomains && name.endsWith(`.${entry.name}`)))
}

/**
 * Whether an Origin is the server's own, as the Host names it: a page the server itself served (its console). Either
 * scheme, since a TLS proxy in front of it may have served the page over https.
 */
function isOwnOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false
  const given = originOf(origin)
  return given !== undefined && (given === originOf(`http://${host}`) || given === originOf(`https://${host}`))
}

function clientRefusal(peer: string | undefined): ApiError {
  return new ApiError(
    'client_not_allowed',
    `Without an admin token the control plane answers this machine only (a connection from loopback); this one came from ${peer ?? 'no address'}. To let other machines drive it, start the server with an admin token (CALL_SANDBOX_ADMIN_TOKEN or --admin-token; adminToken in code), which they then send.`,
  )
}

function hostRefusal(host: string): ApiError {
  const name = plainHostName(host)
  const named = name === undefined ? 'no host name' : quoted(host)
  return new ApiError(
    'host_not_allowed',
    `The control plane answers requests to this machine's own names (localhost, 127.0.0.1, [::1]); this one names ${named}, as a page of a domain rebound to this machine would. To call it by that name, start the server with --allowed-hosts ${quoted(name ?? '<that name>')} (or --admin-token).`,
    { param: 'Host' },
  )
}

function originRefusal(origin: string | undefined, site: string | undefined): ApiError {
  const page =
    origin === undefined
      ? `A page of another site (Sec-Fetch-Site: ${site})`
      : `A page of another origin (Origin: ${quoted(origin)})`
  const allowable = origin === undefined ? undefined : originOf(origin)
  const fix =
    allowable === undefined
      ? 'Open the control plane by its own address, or start the server with --allowed-origins <the page origin> for that page.'
      : `To let that page in, start the server with --allowed-origins ${quoted(allowable)} (or --admin-token).`
  return new ApiError(
    'origin_not_allowed',
    `${page} may not call the control plane: it could read the request journal and reset the sandbox. ${fix} curl and the console need nothing.`,
    { param: 'Origin' },
  )
}

function quoted(text: string): string {
  return text.length > QUOTED_LENGTH ? `${text.slice(0, QUOTED_LENGTH)}…` : text
}
