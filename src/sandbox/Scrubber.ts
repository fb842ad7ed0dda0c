import {
  credentialPairs,
  credentialsOf,
  isCredentialName,
  isPartOfPublicKey,
  isPublicKey,
  shownCredential,
} from './credentials.js'

/**
 * The shortest secret the value rule looks for: a shorter one (a cookie's
 * `dark`, a 4-digit pin) would turn up inside ordinary text and mangle it.
 * The admin token and a key of a user's own organizations are never shorter
 * (resolveOptions and the fixture schema refuse it), so only a credential the
 * request carried may be, and that one the name rule shows by its name alone.
 */
export const SCRUBBED_FROM = 8

/** The beginning of a secret a cut text may keep: no more than the 4 characters `shownCredential` shows. */
const CUT_SHOWN_FROM = 5
/** Places a cut secret's beginning is looked for at. */
const CUT_TRIES = 16
/** The longest secret found encoded as well as sent, and how many are: the pattern stays small whatever is sent. */
const PATTERNED_UP_TO = 256
const PATTERNED_SECRETS = 16
/** A request's own credentials looked for by value: past them, a credential is still shown by its name's rule. */
const SENT_SCRUBBED = 16
/** What may follow a value's cut: `…`, a closing quote, or both. */
const CUT_TAIL = /[…"]{0,2}$/

/** What the value rule needs of a world: its admin token and its keys. */
export interface SecretHolder {
  readonly options: { readonly adminToken?: string | undefined }
  readonly organizations: readonly { readonly keys: readonly { readonly key: string }[] }[]
}

/**
 * The value rule: every secret the sandbox knows (its admin token, the keys
 * of a user's own organizations) and every credential a request carried
 * (`credentialsOf` its headers, the values of its query parameters named
 * like a credential), when not a built-in key nor part of one and of
 * `SCRUBBED_FROM` characters or more, replaced wherever it occurs, as
 * `shownCredential` shows it: in the journal's path, query, headers and
 * bodies, the proxy's contract violations and drift report, the request log,
 * and an error's message, `param` and `details`. The name rule
 * (`shownHeader`, `shownUrl`) runs first: the value rule finds what it left.
 *
 * A secret is found as sent and encoded, character by character and in any
 * mix: percent-encoded (either case of hex, `+` for a space) as in a path or
 * a query, and JSON-escaped (`\"`, `\\`, `\/`, `\u0041`) as in a body.
 *
 * @example
 * const scrubber = new Scrubber(['sk_live_ORGKEY1234567wxyz'])
 * scrubber.text('GET /v1/calls/sk_live_ORGKEY1234567wxyz') // 'GET /v1/calls/…wxyz'
 */
export class Scrubber {
  /** The rule with nothing to find, for a request with no secret: each text as it is, at the cost of a check. */
  static readonly NONE = new Scrubber([])

  /** Each secret's pattern in its own group, the longest first (a secret inside another does not cut it). */
  #pattern: RegExp | undefined
  /** What the secret of each group shows as. */
  #shown: readonly string[]
  /**
   * Texts found by plain search, and what they show as: secrets too long or too many for the pattern (a header of
   * 60 KB), and a request's own credentials in the forms it may be written in (`including`).
   */
  #literal: readonly (readonly [string, string])[]
  #secrets: readonly string[]

  constructor(secrets: readonly string[], adminToken?: string) {
    this.#secrets = [...new Set(secrets)].sort((a, b) => b.length - a.length)
    const patterned = this.#secrets.filter((secret) => secret.length <= PATTERNED_UP_TO).slice(0, PATTERNED_SECRETS)
    const shown = (secret: string) => shownCredential(secret, adminToken)
    this.#shown = patterned.map(shown)
    this.#literal = this.#secrets
      .filter((secret) => !patterned.includes(secret))
      .map((secret) => [secret, shown(secret)])
    this.#pattern =
      patterned.length === 0
        ? undefined
        : new RegExp(patterned.map((secret) => `(${patternOf(secret)})`).join('|'), 'g')
  }

  /** Whether it has anything to find. */
  get finds(): boolean {
    return this.#pattern !== undefined || this.#literal.length > 0
  }

  /**
   * This rule, and also `sent` (a request's own credentials, the first `SENT_SCRUBBED` of them), each found by plain
   * search as sent, percent-encoded and JSON-escaped.
   *
   * @note Not by a pattern of their own: a pattern of 16 secrets of 256 characters takes 50 to 250 ms to build and
   * compile, which any client could make every request cost. A plain search costs what the text's length does.
   */
  including(sent: readonly string[], adminToken?: string): Scrubber {
    const more = [...new Set(sent)]
      .filter((secret) => !this.#secrets.includes(secret))
      .slice(0, SENT_SCRUBBED)
      .sort((a, b) => b.length - a.length)
    if (more.length === 0) return this
    const scrubber = new Scrubber([], adminToken)
    scrubber.#pattern = this.#pattern
    scrubber.#shown = this.#shown
    scrubber.#literal = [
      ...more.flatMap((secret) => formsOf(secret).map((form) => [form, shownCredential(secret, adminToken)] as const)),
      ...this.#literal,
    ]
    scrubber.#secrets = [...this.#secrets, ...more].sort((a, b) => b.length - a.length)
    return scrubber
  }

  /**
   * `text` with every secret replaced. `cut`: the text was cut short (a body at 4 KiB, a value shortened with
   * `…`), so a secret may show only its beginning at the end, and that beginning goes too.
   */
  text(text: string, cut = false): string {
    if (!this.finds) return text
    let replaced = text
    for (const [secret, shown] of this.#literal) replaced = replaced.replaceAll(secret, shown)
    if (this.#pattern)
      replaced = replaced.replace(this.#pattern, (...groups: unknown[]) => {
        const index = groups.findIndex((group, i) => i > 0 && group !== undefined)
        return this.#shown[index - 1]!
      })
    return cut ? this.#withoutCutSecret(replaced) : replaced
  }

  /** A JSON value (an error's details) with every secret replaced in its strings, its object keys too. */
  value<T>(value: T): T {
    if (!this.finds) return value
    if (typeof value === 'string') return this.text(value) as T
    if (Array.isArray(value)) return value.map((item) => this.value(item)) as T
    if (value === null || typeof value !== 'object') return value
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [this.text(key), this.value(item)])) as T
  }

  /**
   * A text cut short, without the beginning of a secret at its end, of 5 characters or more: before the `…` or the
   * closing `"` of a shortened value, if any.
   */
  #withoutCutSecret(text: string): string {
    const tail = CUT_TAIL.exec(text)![0]
    const end = text.length - tail.length
    for (const secret of this.#secrets) {
      // Where the secret's first characters are, from the end: bounded, as a secret of one letter repeated would not be.
      const beginning = secret.slice(0, CUT_SHOWN_FROM)
      let at = text.lastIndexOf(beginning, end - CUT_SHOWN_FROM)
      for (let tries = 0; at !== -1 && end - at < secret.length && tries < CUT_TRIES; tries++) {
        if (secret.startsWith(text.slice(at, end)))
          return `${text.slice(0, at)}${tail.startsWith('…') ? '' : '…'}${tail}`
        at = at === 0 ? -1 : text.lastIndexOf(beginning, at - 1)
      }
    }
    return text
  }
}

/** The secrets of each world, found again when its organizations change (a scenario swap). */
const known = new WeakMap<
  SecretHolder,
  { organizations: SecretHolder['organizations']; secrets: ReadonlySet<string>; scrubber: Scrubber }
>()

/**
 * The value rule for what is not a request's (a server's error before any
 * request is read): the secrets `world` knows. Made once a world.
 */
export function knownScrubber(world: SecretHolder): Scrubber {
  return knownOf(world).scrubber
}

function knownOf(world: SecretHolder) {
  const cached = known.get(world)
  if (cached?.organizations === world.organizations) return cached
  const secrets = knownSecrets(world)
  const scrubber = secrets.length === 0 ? Scrubber.NONE : new Scrubber(secrets, world.options.adminToken)
  const made = { organizations: world.organizations, secrets: new Set(secrets), scrubber }
  known.set(world, made)
  return made
}

function knownSecrets({ options, organizations }: SecretHolder): string[] {
  const keys = organizations.flatMap(({ keys }) => keys.map(({ key }) => key)).filter((key) => !isPublicKey(key))
  return options.adminToken === undefined ? keys : [options.adminToken, ...keys]
}

/**
 * The value rule for one request: the secrets `world` knows and the
 * credentials `headers` and `query` carry. The world's own when the request
 * carried no other (a built-in key, a key of the user's own, the admin
 * token): `Scrubber.NONE`, nothing to do, for the usual request.
 */
export function scrubberOf(
  world: SecretHolder,
  headers: Iterable<[string, string]>,
  /** The query's parameters, or those of them named like a credential (`credentialPairs`). */
  query: Iterable<[string, string]> | undefined,
): Scrubber {
  const { secrets, scrubber } = knownOf(world)
  const sent: string[] = []
  for (const [name, value] of headers)
    for (const credential of credentialsOf(name, value)) keep(sent, credential, secrets)
  if (query) for (const [name, value] of query) if (isCredentialName(name)) keep(sent, value, secrets)
  return sent.length === 0 ? scrubber : scrubber.including(sent, world.options.adminToken)
}

/** Keeps a credential the request carried, when the value rule is to look for it. */
function keep(sent: string[], credential: string, known: ReadonlySet<string>): void {
  if (credential.length >= SCRUBBED_FROM && !known.has(credential) && !isPartOfPublicKey(credential))
    sent.push(credential)
}

const requests = new WeakMap<object, Scrubber>()

/**
 * The value rule for a fetch request: made once, when first asked (its
 * error, or its journal entry), and the same after.
 *
 * @example
 * requestScrubber(sandbox, request).text(context.path)
 */
export function requestScrubber(world: SecretHolder, request: Pick<Request, 'url' | 'headers'>): Scrubber {
  let scrubber = requests.get(request)
  if (!scrubber) {
    scrubber = scrubberOf(world, request.headers, queryOf(request.url))
    requests.set(request, scrubber)
  }
  return scrubber
}

/**
 * The value rule for a request's journal entry, the last to ask: the one its error was scrubbed with, if it had one,
 * else one made now from `query` (the URL's, as the dispatch parsed it) and not kept: keeping one for every request
 * made a `WeakMap` entry per request that nothing would read again.
 *
 * @example
 * journalScrubber(sandbox, request, url.searchParams).text(path)
 */
export function journalScrubber(
  world: SecretHolder,
  request: Pick<Request, 'headers'>,
  query: URLSearchParams,
  /** The request's headers, when the caller has read them already. */
  headers: Iterable<[string, string]> = request.headers,
): Scrubber {
  return requests.get(request) ?? scrubberOf(world, headers, query)
}

/**
 * A request URL's query parameters named like a credential, read from the URL as `Request` has already parsed and
 * written it, without parsing the others: every error asks for it.
 */
function queryOf(url: string): Iterable<[string, string]> | undefined {
  const fragment = url.indexOf('#')
  const beforeFragment = fragment === -1 ? url : url.slice(0, fragment)
  const start = beforeFragment.indexOf('?')
  return start === -1 ? undefined : credentialPairs(beforeFragment.slice(start + 1))
}

/**
 * A pattern that finds `secret` as sent, percent-encoded or JSON-escaped, a
 * character at a time: `a` is `a`, `%61`, `\u0061`; a space is `+` too.
 */
function patternOf(secret: string): string {
  let pattern = ''
  for (const character of secret) {
    const ways = [escapeForPattern(character)]
    const bytes = new TextEncoder().encode(character)
    ways.push([...bytes].map((byte) => `%${hexPattern(byte, 2)}`).join(''))
    ways.push(
      unitsOf(character)
        .map((unit) => `\\\\u${hexPattern(unit, 4)}`)
        .join(''),
    )
    if (character === '"' || character === '\\' || character === '/') ways.push(`\\\\${escapeForPattern(character)}`)
    if (character === ' ') ways.push('\\+')
    pattern += `(?:${ways.join('|')})`
  }
  return pattern
}

function unitsOf(character: string): number[] {
  return Array.from({ length: character.length }, (_, i) => character.charCodeAt(i))
}

/** A number in hex, `digits` long, each letter in either case. */
function hexPattern(value: number, digits: number): string {
  return [...value.toString(16).padStart(digits, '0')]
    .map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit))
    .join('')
}

function escapeForPattern(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')
}

/** The forms a request's credential may be written down in: as sent, percent-encoded (a path, a query), JSON-escaped (a body). */
function formsOf(secret: string): string[] {
  return [...new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)])]
}
