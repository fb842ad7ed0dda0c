import type { IncomingMessage } from 'node:http'
import { echoed } from '../text/echoed.js'
import { ApiError } from '../schemas/ApiError.js'

/**
 * A Host as RFC 9110 (7.2) has it: a host name (RFC 3986's reg-name) or an address, IPv6 in brackets, and an optional
 * port. Nothing else: no user information (`user:password@`), path, query or white space.
 */
const PLAIN_HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]+)(?::\d{0,5})?$/

/**
 * What HTTP itself refuses, or undefined: an HTTP/1.1 request without a Host or any request with more than one
 * (RFC 9112, 3.2), a Host that is not a plain `host[:port]`, a request target with user information (RFC 9110,
 * 4.2.4), an expectation other than `100-continue` (RFC 9110, 10.1.1). A refusal quotes nothing of a Host or a
 * target: one with user information carries a password.
 */
export function refusedByHttp(request: IncomingMessage): ApiError | undefined {
  const hosts = hostCount(request.rawHeaders)
  if (hosts === 0 && request.httpVersion === '1.1') {
    return hostError('The request has no Host header, which HTTP/1.1 requires.')
  }
  if (hosts > 1) return hostError(`The request has ${hosts} Host headers; HTTP takes one (RFC 9112, 3.2).`)
  const { host } = request.headers
  if (host !== undefined && plainHostName(host) === undefined) {
    return hostError(
      `The Host header is not a host name or address with an optional port (such as 127.0.0.1:4010): it holds ${flawOf(host)}.`,
    )
  }
  if (hasUserInformation(request.url ?? '/')) {
    return new ApiError(
      'invalid_parameter',
      'The request target has user information (user:password@), which HTTP does not take: send credentials in Authorization.',
    )
  }
  const expect = request.headers.expect
  if (expect !== undefined && expect.trim().toLowerCase() !== '100-continue') {
    const message = `The sandbox meets no expectation but 100-continue; got Expect: ${echoed(expect)}.`
    return new ApiError('expectation_failed', message, { param: 'Expect' })
  }
  return undefined
}

/**
 * The host name of a plain Host (`host[:port]`) as a URL writes it, lower case (`[::1]`, `127.0.0.1`, `localhost`);
 * undefined for anything else.
 *
 * @example
 * plainHostName('LOCALHOST:4010') // 'localhost'
 * plainHostName('user:pass@127.0.0.1') // undefined
 */
export function plainHostName(host: string): string | undefined {
  if (lastHost?.host === host) return lastHost.name
  lastHost = { host, name: hostNameOf(host) }
  return lastHost.name
}

/** The last Host asked about, and its name: a client sends the same one with every request, and each is parsed. */
let lastHost: { host: string; name: string | undefined } | undefined

function hostNameOf(host: string): string | undefined {
  if (!PLAIN_HOST.test(host)) return undefined
  try {
    return new URL(`http://${host}`).hostname
  } catch {
    return undefined
  }
}

/** Host headers as sent: Node's `headers.host` keeps the first alone. */
function hostCount(raw: readonly string[]): number {
  let count = 0
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') count++
  return count
}

/** What makes a Host not plain, in words that quote none of it. */
function flawOf(host: string): string {
  if (host.includes('@')) return 'user information (…@), which a Host never has'
  if (/[/?#\\]/.test(host)) return 'a path, query or fragment'
  if (/\s/.test(host)) return 'white space'
  if (host === '') return 'nothing'
  return 'a character no host name has, or a port past 65535'
}

/** Whether a request target names a user: absolute-form (`http://user:password@host/path`) or `//user:password@host/path`. */
function hasUserInformation(target: string): boolean {
  if (target.startsWith('/') && !target.startsWith('//')) return false
  try {
    const url = new URL(target, 'http://sandbox.invalid')
    return url.username !== '' || url.password !== ''
  } catch {
    return false
  }
}

function hostError(message: string): ApiError {
  return new ApiError('invalid_parameter', message, { param: 'Host' })
}
