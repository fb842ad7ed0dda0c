import { defaultOrganizations } from '../seed/fixtures.js'

/*
 * How a credential shows wherever the sandbox writes one down: the journal
 * (its `key`, its headers and its query), the usage report, the request
 * log, the drift report, the OpenAPI document. Nothing there keeps a secret
 * whole.
 */

/** The built-in keys (`fixtures/organizations.json`): the README and the contract publish them, so they show whole. */
const PUBLIC_KEYS: ReadonlySet<string> = new Set(defaultOrganizations.flatMap(({ keys }) => keys.map(({ key }) => key)))

/** What the admin token shows as, wherever it was sent: never any of it. */
const ADMIN_TOKEN_SHOWN = '(admin token)'

/** The length from which a credential shows its last 4 characters: at least twice as many stay hidden. */
const SHOWS_LAST_4_FROM = 12

/**
 * Names that say they carry a credential, of a header or a query parameter
 * alike (lower-cased): `Authorization`, `Cookie`, `X-Api-Key`,
 * `X-Auth-Token`, `X-Session-Id`, `X-Amz-Signature`, `X-JWT-Assertion`,
 * `access_token`, `api_key`, `key`, `token`, `password`, `passcode`,
 * `client_secret`, `jwt`, `bearer`, `SAMLResponse`, `_csrf`, `sig`, `pass`,
 * `otp`, `sid`, … A short word (`sig`, `pass`, `otp`, `sid`, `pin`) counts
 * alone only, not inside another (`signal`, `passenger`, `hotpink`,
 * `inside`, `shipping`). None of the API's own parameters is named so
 * (`status`, `phone`, `limit`, `cursor`, `since`, `urgency`); the journal's
 * `key` filter is, and is a key.
 */
const SECRET_NAME =
  /auth|cookie|token|secret|passw|passphrase|passcode|pwd|key|session|credential|signature|jwt|bearer|assertion|saml|csrf|xsrf|(?:^|[^a-z])(?:sig|pass|otp|sid|pin)(?:[^a-z]|$)/
/** Named like a credential, but a challenge (a scheme and a realm): kept as it is, the 401's `WWW-Authenticate: Bearer`. */
const CHALLENGES: ReadonlySet<string> = new Set(['www-authenticate', 'proxy-authenticate'])
/** Headers whose value is a URL, which may carry a query. */
const URL_HEADERS: ReadonlySet<string> = new Set(['referer', 'location', 'content-location'])
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

/** Whether `text` is a built-in key or a part of one: the help a 401 gives names them, and keeps them whole. */
export function isPartOfPublicKey(text: string): boolean {
  for (const key of PUBLIC_KEYS) if (key.includes(text)) return true
  return false
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
 * carries a credential (`isCredentialName`) shows it as `shownCredential`
 * does; an `Authorization` keeps its scheme (`Basic` nothing more: its
 * credential is a password in base64), a cookie its name and a `Set-Cookie`
 * its attributes (several folded into one, one a line); a URL (`Referer`,
 * `Location`) its query as `shownUrl` shows it. Any other header is kept as
 * it is.
 *
 * @example
 * shownHeader('authorization', 'Bearer sk_live_51HxQz9abcd') // 'Bearer …abcd'
 * shownHeader('cookie', 'theme=dark; sid=8f14e45fceea167a5a36') // 'theme=…; sid=…5a36'
 * shownHeader('content-type', 'application/json') // 'application/json'
 */
export function shownHeader(name: string, value: string, adminToken?: string): string {
  if (PLAIN_HEADERS.has(name)) return value
  const lower = name.toLowerCase()
  const shown = (credential: string) => shownCredential(credential, adminToken)
  if (lower === 'cookie')
    return value
      .split(';')
      .map((cookie) => shownCookie(cookie.trim(), shown))
      .join('; ')
  if (lower === 'set-cookie')
    return value
      .split(NEXT_SET_COOKIE)
      .map((setCookie) => {
        const [cookie = '', ...attributes] = setCookie.split(';')
        return [shownCookie(cookie.trim(), shown), ...attributes].join(';')
      })
      .join('\n')
  if (AUTHORIZATIONS.has(lower)) {
    const { scheme, credential } = authorizationOf(value)
    if (scheme === undefined) return shown(credential!)
    if (credential === undefined) return scheme
    return `${scheme} ${scheme.toLowerCase() === 'basic' ? '…' : shown(credential)}`
  }
  if (URL_HEADERS.has(lower)) return shownUrl(value, adminToken)
  return isCredentialName(lower) ? shown(value.trim()) : value
}

/**
 * The credentials a header carries, as `shownHeader` judges them: an
 * `Authorization`'s after its scheme (and each word of it), each cookie's
 * value, a header named like a credential's value. A URL's (`Referer`) and a
 * challenge's: none. The value rule (`Scrubber`) looks for them everywhere
 * else the request is written down.
 *
 * @example
 * credentialsOf('authorization', 'Token tok_a1b2c3d4 tok_e5f6g7h8') // ['tok_a1b2c3d4 tok_e5f6g7h8', 'tok_a1b2c3d4', 'tok_e5f6g7h8']
 * credentialsOf('cookie', 'theme=dark; sid=8f14e45fceea167a5a36') // ['dark', '8f14e45fceea167a5a36']
 */
export function credentialsOf(name: string, value: string): readonly string[] {
  if (PLAIN_HEADERS.has(name)) return NONE
  const lower = name.toLowerCase()
  if (lower === 'cookie') return value.split(';').map((cookie) => cookieValue(cookie.trim()))
  if (lower === 'set-cookie')
    return value.split(NEXT_SET_COOKIE).map((setCookie) => cookieValue(setCookie.split(';')[0]!.trim()))
  if (AUTHORIZATIONS.has(lower)) {
    const { credential } = authorizationOf(value)
    if (credential === undefined) return []
    const words = credential.split(/[\s,]+/)
    return words.length > 1 ? [credential, ...words] : [credential]
  }
  if (URL_HEADERS.has(lower)) return []
  return isCredentialName(lower) ? [value.trim()] : []
}

const AUTHORIZATIONS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization'])

/**
 * Common headers, as `Headers` names them (lower-cased), that carry no credential and are no URL: kept as they are
 * without the checks above, which every request and answer asks of each of its headers. The test checks that each is
 * one the checks would keep as it is.
 */
export const PLAIN_HEADERS: ReadonlySet<string> = new Set([
  ...['accept', 'accept-encoding', 'accept-language', 'cache-control', 'connection', 'content-encoding'],
  ...['content-length', 'content-type', 'date', 'etag', 'host', 'if-none-match', 'keep-alive', 'origin', 'pragma'],
  ...['preference-applied', 'retry-after', 'sec-fetch-dest', 'sec-fetch-mode', 'sec-fetch-site', 'traceparent'],
  ...['transfer-encoding', 'user-agent', 'vary', 'x-content-type-options', 'x-forwarded-for', 'x-forwarded-proto'],
  ...['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-request-id', 'x-sandbox-console'],
])
const NONE: readonly string[] = Object.freeze([])

/** An `Authorization`'s scheme, when it is a known one, and the credential after it; without one, all credential. */
function authorizationOf(value: string): { scheme?: string; credential?: string } {
  const [, scheme = '', credential] = /^\s*(\S+)(?:\s+(.*?))?\s*$/s.exec(value) ?? []
  return SCHEMES.has(scheme.toLowerCase()) ? { scheme, credential } : { credential: value.trim() }
}

/**
 * Whether a header or a query parameter named `name` carries a credential
 * (`SECRET_NAME`, in any case), and is not a challenge.
 *
 * @example
 * isCredentialName('X-Api-Key') // true
 * isCredentialName('access_token') // true
 * isCredentialName('cursor') // false
 */
export function isCredentialName(name: string): boolean {
  const lower = name.toLowerCase()
  return SECRET_NAME.test(lower) && !CHALLENGES.has(lower)
}

/**
 * A query parameter's value (decoded) as the sandbox shows it: one named
 * like a credential as `shownCredential` shows it; any other as sent.
 *
 * @example
 * shownParameter('access_token', 'sk_live_51HxQz9abcd') // '…abcd'
 * shownParameter('status', 'completed') // 'completed'
 */
export function shownParameter(name: string, value: string, adminToken?: string): string {
  return isCredentialName(name) ? shownCredential(value, adminToken) : value
}

/**
 * A URL, or a path with its query, as sent, but for the value of each query
 * parameter named like a credential, shown as `shownParameter` shows it and
 * percent-encoded again (but for its `…`, kept as it reads); a fragment of
 * `name=value&…` form (an OAuth implicit grant's `#access_token=…`) alike.
 * Everything else is kept byte for byte, the order and encoding of the other
 * parameters too.
 *
 * @example
 * shownUrl('/v1/calls?access_token=sk_live_51HxQz9abcd&status=completed') // '/v1/calls?access_token=…abcd&status=completed'
 * shownUrl('https://app.test/cb#access_token=sk_live_51HxQz9abcd') // 'https://app.test/cb#access_token=…abcd'
 * shownUrl('redis://default:hunter2pass-long@10.0.0.5:6379') // 'redis://default:…long@10.0.0.5:6379'
 */
export function shownUrl(given: string, adminToken?: string): string {
  const url = withUserInfoShown(given, adminToken)
  const hash = url.indexOf('#')
  const beforeHash = hash === -1 ? url : url.slice(0, hash)
  const start = beforeHash.indexOf('?')
  const shown =
    start === -1
      ? beforeHash
      : `${beforeHash.slice(0, start + 1)}${shownPairs(beforeHash.slice(start + 1), adminToken)}`
  return hash === -1 ? shown : `${shown}#${shownPairs(url.slice(hash + 1), adminToken)}`
}

/**
 * A URL's user information (`//user:password@`, or a token alone as `//token@`) anywhere in a text: up to the last @
 * before the host, as URL parsers read it, since a password may hold an @ unencoded.
 */
const USER_INFO = /\/\/([^\s/?#]*)@/g

/**
 * A text with the password of every URL in it (or the user, when it is the
 * only part: a token) shown as `shownCredential` shows it: for a message that
 * quotes a URL someone gave (`--store redis://user:password@host`), and for
 * the path of a request.
 *
 * @example
 * withUserInfoShown('no Redis at redis://:hunter2pass-long@10.0.0.5:6379') // 'no Redis at redis://:…long@10.0.0.5:6379'
 */
export function withUserInfoShown(text: string, adminToken?: string): string {
  if (!text.includes('@')) return text
  return text.replace(USER_INFO, (_, userInfo: string) => `//${shownUserInfo(userInfo, adminToken)}@`)
}

/** `user:password` with its password shown as `shownCredential` shows it, or a user alone (a token) so shown. */
function shownUserInfo(userInfo: string, adminToken: string | undefined): string {
  const colon = userInfo.indexOf(':')
  return colon === -1
    ? shownAgain(userInfo, adminToken)
    : `${userInfo.slice(0, colon)}:${shownAgain(userInfo.slice(colon + 1), adminToken)}`
}

/** `shownCredential`, but for a credential shown already (`…` and at most 4 characters): a message shown twice reads the same. */
function shownAgain(credential: string, adminToken: string | undefined): string {
  return /^….{0,4}$/u.test(credential) ? credential : shownCredential(credential, adminToken)
}

/**
 * A message that quotes URLs someone gave (an option's value, a store's URL), each shown with its password as
 * `withUserInfoShown` shows it, and neither its query nor its fragment: `?…` and `#…` stand for them (a token
 * travels there as often as in a password). `given` are the values given as URLs (an option's, even one that is no
 * URL): the query of each is hidden wherever the message quotes it, also in a piece no URL pattern finds
 * (`"a b?token=…"`, `127.0.0.1:4010/?token=…`).
 *
 * @example
 * withUrlsShown("--url must not have a query; got http://h.test/?token=abc.") // '--url must not have a query; got http://h.test/?….'
 */
export function withUrlsShown(text: string, given: readonly string[] = []): string {
  let shown = text
  for (const each of given) {
    // A value given is hidden whole wherever it is quoted, also a password the pattern for any message cannot tell
    // the start of (one with a space); one with a ? or a #, which no parser reads, to the last @ before the path.
    const userInfo = (parses(each) ? /\/\/([^/?#]*)@/ : /\/\/([^/]*)@/).exec(each)?.[1]
    let value = each
    if (userInfo !== undefined) {
      const hidden = `//${shownUserInfo(userInfo, undefined)}@`
      shown = shown.replaceAll(`//${userInfo}@`, hidden)
      value = each.replace(`//${userInfo}@`, hidden)
    }
    const start = value.search(/[?#]/)
    if (start !== -1 && start < value.length - 1) shown = shown.replaceAll(value.slice(start), `${value[start]}…`)
  }
  return withUserInfoShown(shown).replace(URL_IN_TEXT, (url) => {
    // The sentence's own punctuation after a URL stays.
    const end = /[.,;:!)\]]*$/.exec(url)![0]
    const bare = url.slice(0, url.length - end.length)
    const cut = bare.search(/[?#]/)
    return cut === -1 ? url : `${bare.slice(0, cut + 1)}…${end}`
  })
}

function parses(url: string): boolean {
  try {
    new URL(url)
    return true
  } catch {
    return false
  }
}

/** A URL in a message: its scheme, then anything up to a space or a quote. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"`<>]*/gi

function shownPairs(pairs: string, adminToken: string | undefined): string {
  // Most queries name no credential: then none is rewritten, and a query of thousands of parameters is not split.
  if (credentialPairs(pairs).next().done) return pairs
  return pairs
    .split('&')
    .map((pair) => shownPair(pair, adminToken))
    .join('&')
}

/** One `name=value` of a query as `shownUrl` writes it. */
function shownPair(pair: string, adminToken: string | undefined): string {
  // Decoded as the URL standard decodes a query (`+` a space, a bad escape kept), as the journal's query is.
  const [parsed] = new URLSearchParams(pair)
  if (parsed === undefined || !isCredentialName(parsed[0])) return pair
  const equals = pair.indexOf('=')
  if (equals === -1) return pair
  const shown = encodeURIComponent(shownCredential(parsed[1], adminToken)).replaceAll(ENCODED_ELLIPSIS, '…')
  return `${pair.slice(0, equals)}=${shown}`
}

const ENCODED_ELLIPSIS = encodeURIComponent('…')

/**
 * Where the next of several `Set-Cookie`s folded into one value begins (fetch sends them so, `, ` between): a comma
 * before `name=`. The comma of an `Expires` date is followed by a day, and a cookie's value has none.
 */
const NEXT_SET_COOKIE = /,\s*(?=[^\s=;,]+=)/

/** `name=value` with its value shown as `shown` does; a cookie without `=` is all value. */
function shownCookie(cookie: string, shown: (credential: string) => string): string {
  const equals = cookie.indexOf('=')
  return equals === -1 ? shown(cookie) : `${cookie.slice(0, equals)}=${shown(cookie.slice(equals + 1))}`
}

/** A cookie's value: all of it without `=`. */
function cookieValue(cookie: string): string {
  return cookie.slice(cookie.indexOf('=') + 1)
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

/**
 * The parameters of a query string (without its `?`) named like a credential, decoded as `URLSearchParams` decodes
 * them, found without parsing the others: the value rule looks at every parameter of every request, and a query of
 * thousands (a 400 past the bound) must not cost that rule a parse of each. A name is decoded only when encoded.
 *
 * @example
 * [...credentialPairs('limit=2&api_key=sk_live_1234')] // [['api_key', 'sk_live_1234']]
 */
export function* credentialPairs(query: string): Generator<[string, string]> {
  // A name seen before is not tested again: thousands of repeats of one name cost one test.
  const tested = new Map<string, boolean>()
  let last: { name: string; credential: boolean } | undefined
  let start = 0
  while (start < query.length) {
    let end = query.indexOf('&', start)
    if (end === -1) end = query.length
    if (end > start) {
      // The name of the piece before, again (a repeat), is known without cutting it out.
      const again =
        last !== undefined && query.startsWith(last.name, start) && endsName(query, start + last.name.length, end)
      if (!again) {
        const equals = query.indexOf('=', start)
        const name = query.slice(start, equals === -1 || equals > end ? end : equals)
        let credential = tested.get(name)
        if (credential === undefined) {
          credential = isCredentialName(ENCODED.test(name) ? decodedName(name) : name)
          tested.set(name, credential)
        }
        last = { name, credential }
      }
      if (last!.credential) yield* new URLSearchParams(query.slice(start, end))
    }
    start = end + 1
  }
}

/** Whether a name ends at `at` in the piece that ends at `end`: the piece ends there, or its `=` is there. */
function endsName(query: string, at: number, end: number): boolean {
  return at === end || (at < end && query.charCodeAt(at) === EQUALS)
}

const EQUALS = 61

/** What `URLSearchParams` decodes in a name: a percent escape, a `+` (a space). */
const ENCODED = /[%+]/

function decodedName(name: string): string {
  for (const [decoded] of new URLSearchParams(`${name}=`)) return decoded
  return name
}
