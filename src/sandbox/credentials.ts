import { defaultOrganizations } from '../world/fixtures.js'

/*
 * How a credential shows wherever the sandbox writes one down: the journal
 * (its `key` and its headers), the usage report, the request log, the
 * OpenAPI document. Nothing there keeps a secret whole.
 */

/** The built-in keys (`fixtures/organizations.json`): the README and the contract publish them, so they show whole. */
const PUBLIC_KEYS: ReadonlySet<string> = new Set(defaultOrganizations.flatMap(({ keys }) => keys.map(({ key }) => key)))

/** What the admin token shows as, wherever it was sent: never any of it. */
const ADMIN_TOKEN_SHOWN = '(admin token)'

/** The length from which a credential shows its last 4 characters: at least twice as many stay hidden. */
const SHOWS_LAST_4_FROM = 12

/**
 * Headers whose name says they carry a credential: `Authorization`,
 * `Proxy-Authorization`, `Cookie`, `Set-Cookie`, `X-Api-Key`,
 * `X-Auth-Token`, `X-Session-Id`, `Ocp-Apim-Subscription-Key`, …
 */
const SECRET_HEADER = /auth|cookie|token|secret|passw|key|session|credential|signature/
/** Named like a credential, but a challenge (a scheme and a realm): kept as it is, the 401's `WWW-Authenticate: Bearer`. */
const CHALLENGES: ReadonlySet<string> = new Set(['www-authenticate', 'proxy-authenticate'])
/** `Authorization` schemes kept in front of their credential: IANA's registry, and those common outside it. */
const SCHEMES: ReadonlySet<string> = new Set(
  [
    ...['Basic', 'Bearer', 'Digest', 'DPoP', 'GNAP', 'HOBA', 'Mutual', 'Negotiate', 'OAuth', 'PrivateToken'],
    ...['SCRAM-SHA-1', 'SCRAM-SHA-256', 'vapid', 'NTLM', 'Token', 'ApiKey', 'AWS4-HMAC-SHA256'],
  ].map((scheme) => scheme.toLowerCase()),
)

/** Whether `key` is one of the built-in keys, which anyone may know. */
export function isPublicKey(key: string): boolean {
  return PUBLIC_KEYS.has(key)
}

/**
 * The keys a 401 or the OpenAPI document may name: the sandbox's, when
 * every one is a built-in key; none when it has a key of a user's own
 * organizations (`--organizations`), which may be real-looking or shared.
 *
 * @example
 * publicKeysOf(sandbox.apiKeys) // ['sk_sandbox_all', 'sk_sandbox_readonly', 'sk_sandbox_calls', 'sk_sandbox_org2']
 */
export function publicKeysOf(keys: readonly { key: string }[]): string[] {
  return keys.length > 0 && keys.every(({ key }) => PUBLIC_KEYS.has(key)) ? keys.map(({ key }) => key) : []
}

/**
 * A credential as the sandbox shows it: a built-in key whole; the admin
 * token as `(admin token)`; any other (an unknown key, a key of a user's
 * own organizations, a wrong admin token, a cookie) as `…` and its last 4
 * characters, or `…` alone when it has fewer than 12.
 *
 * @example
 * shownCredential('sk_sandbox_all') // 'sk_sandbox_all'
 * shownCredential('sk_live_51HxQz9abcd') // '…abcd'
 * shownCredential('hunter2') // '…'
 * shownCredential('s3cret-admin-token', 's3cret-admin-token') // '(admin token)'
 */
export function shownCredential(credential: string, adminToken?: string): string {
  if (credential === '') return ''
  // A built-in key first: the usual case costs no digest, and no admin token is one (resolveOptions refuses it).
  if (PUBLIC_KEYS.has(credential)) return credential
  if (adminToken !== undefined && sameSecret(credential, adminToken)) return ADMIN_TOKEN_SHOWN
  return credential.length >= SHOWS_LAST_4_FROM ? `…${credential.slice(-4)}` : '…'
}

/**
 * A header's value as the journal keeps it: a header whose name says it
 * carries a credential (`SECRET_HEADER`) shows it as `shownCredential`
 * does; an `Authorization` keeps its scheme (`Basic` nothing more: its
 * credential is a password in base64), a cookie its name and a `Set-Cookie`
 * its attributes. Any other header is kept as it is.
 *
 * @example
 * shownHeader('authorization', 'Bearer sk_live_51HxQz9abcd') // 'Bearer …abcd'
 * shownHeader('cookie', 'theme=dark; sid=8f14e45fceea167a5a36') // 'theme=…; sid=…5a36'
 * shownHeader('content-type', 'application/json') // 'application/json'
 */
export function shownHeader(name: string, value: string, adminToken?: string): string {
  const lower = name.toLowerCase()
  const shown = (credential: string) => shownCredential(credential, adminToken)
  if (lower === 'cookie')
    return value
      .split(';')
      .map((cookie) => shownCookie(cookie.trim(), shown))
      .join('; ')
  if (lower === 'set-cookie') {
    const [cookie = '', ...attributes] = value.split(';')
    return [shownCookie(cookie.trim(), shown), ...attributes].join(';')
  }
  if (lower === 'authorization' || lower === 'proxy-authorization') {
    const [, scheme = '', credential] = /^\s*(\S+)(?:\s+(.*?))?\s*$/s.exec(value) ?? []
    if (!SCHEMES.has(scheme.toLowerCase())) return shown(value.trim())
    if (credential === undefined) return scheme
    return `${scheme} ${scheme.toLowerCase() === 'basic' ? '…' : shown(credential)}`
  }
  return SECRET_HEADER.test(lower) && !CHALLENGES.has(lower) ? shown(value.trim()) : value
}

/** `name=value` with its value shown as `shown` does; a cookie without `=` is all value. */
function shownCookie(cookie: string, shown: (credential: string) => string): string {
  const equals = cookie.indexOf('=')
  return equals === -1 ? shown(cookie) : `${cookie.slice(0, equals)}=${shown(cookie.slice(equals + 1))}`
}

/**
 * Whether `given` is `secret`, in a time that tells neither where they
 * first differ nor how long `secret` is.
 *
 * @note Node's `timingSafeEqual` over SHA-256 digests, which are as long
 * whatever was hashed. `node:crypto` is fetched with `getBuiltinModule`, not
 * imported, so that no bundler takes it into a browser bundle. Without Node
 * (a browser, where the only caller is the page that set the token, and no
 * one on a network times it) a loop with no early return does.
 */
export function sameSecret(given: string, secret: string): boolean {
  const crypto = globalThis.process?.getBuiltinModule?.('node:crypto')
  if (crypto) {
    const digest = (text: string) => crypto.createHash('sha256').update(text).digest()
    return crypto.timingSafeEqual(digest(given), digest(secret))
  }
  const [a, b] = [new TextEncoder().encode(given), new TextEncoder().encode(secret)]
  let difference = a.length ^ b.length
  for (let i = 0; i < b.length; i++) difference |= b[i]! ^ (a[i] ?? 0)
  return difference === 0
}
