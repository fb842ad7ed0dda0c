// One journaled request, whole: what was sent and answered, the reason for an error, copy as curl and replay.

import { el, reasonOf } from './elements.js'

/** @typedef {import('../src/schemas/index.js').JournalEntry} JournalEntry */
/** @typedef {import('./elements.js').ApiError} ApiError */
/** @typedef {ReadonlyArray<{ key: string, scopes: readonly string[] }>} Keys */

/** What curl and fetch set themselves, or what a copy must not carry: the journal's value would be wrong there. */
const SET_BY_THE_CLIENT = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'accept-encoding'])
/** How the journal shows a credential it did not issue: `…` and at most its last four characters. */
const SHOWN_BY_ITS_END = /…\S{0,4}$/

/**
 * The query as it was sent, `?a=1&b=2` (a repeated name once per value), or ''.
 * @param {JournalEntry['query']} query
 * @param {(text: string) => string} [encode] how a name or value is written: as is (to read), or encoded (a URL)
 */
export function queryText(query, encode = (text) => text) {
  const pairs = Object.entries(query).flatMap(([name, value]) =>
    [value].flat().map((one) => `${encode(name)}=${encode(one)}`),
  )
  return pairs.length > 0 ? `?${pairs.join('&')}` : ''
}

/**
 * What a terminal would not show as the text it is: control characters but the newline (a pasted Ctrl-C drops the line
 * typed so far, quotes and all; a tab completes), format characters such as bidi marks (they reorder what the reader
 * sees), line and paragraph separators, and a lone surrogate (UTF-8 has no bytes for it: it is sent as U+FFFD).
 * A newline inside single quotes is text in every shell, and keeps a pretty-printed body legible.
 */
const UNSHOWN = /(?:(?!\n)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|\p{Cs})+/u
/**
 * What a printf format cannot hold as itself: a `-` first would be read as an option, and a `^` first on a line as
 * history's quick substitution by an interactive bash, even inside quotes. A `!` is written too: a format can be in
 * `"$(…)"`, and whether a bash's history expansion sees the single quotes inside a substitution in double quotes has
 * changed from version to version (5.2 leaves it alone; older ones are not tested here).
 */
const NOT_IN_A_FORMAT = new RegExp(`^-|(?<=\\n)\\^|[\\\\'%!]|${UNSHOWN.source}`, 'gu')

/** @typedef {(text: string) => Uint8Array} Encoding how a text becomes the bytes curl is to send */

/** @type {Encoding} */
const utf8 = (text) => new TextEncoder().encode(text)

/**
 * A header as HTTP carries it: a byte a character, as Node and fetch read a header's bytes (a UTF-8 `ë` sent is
 * journaled as `Ã«`, and goes back as the same two bytes).
 * @type {Encoding}
 */
const latin1 = (text) => Uint8Array.from(text, (char) => char.charCodeAt(0))

/** A header's encoding: UTF-8 only for a character above U+00FF, which no header read from the wire holds. */
const headerEncoding = (/** @type {string} */ header) => (/[\u0100-\uffff]/.test(header) ? utf8 : latin1)

/**
 * A text as a format for printf, in single quotes: each of `\`, `'`, `!`, a leading `-`, what a terminal would not
 * show and, for bytes that are not UTF-8, any character beyond ASCII, as its bytes in octal (`\011`); `%` as `%%`.
 * bash's, zsh's, dash's and fish's own printf all write those bytes, NUL too; fish reads no escape in single quotes
 * but `\\` and `\'`, and a `\` here is always before a digit.
 * @param {string} text
 * @param {Encoding} encoding
 */
function printfOf(text, encoding = utf8) {
  const escaped = encoding === utf8 ? NOT_IN_A_FORMAT : new RegExp(`${NOT_IN_A_FORMAT.source}|[\\u0080-\\u00ff]`, 'gu')
  /** @type {string[]} */
  const units = []
  let done = 0
  for (const { 0: run, index } of text.matchAll(escaped)) {
    units.push(...text.slice(done, index))
    if (run === '%') units.push('%%')
    else units.push(...Array.from(encoding(run), (byte) => `\\${byte.toString(8).padStart(3, '0')}`))
    done = index + run.length
  }
  units.push(...text.slice(done))
  return `printf ${lined([units])}`
}

/**
 * The most bytes of one word on a line. A terminal that reads a line for the shell (dash has no line editor of its
 * own) keeps 4,095 bytes of it on Linux, 1,024 on macOS, and drops the rest, closing quote and all: the quoted text
 * of the lines after would then run. A line holds at most three words' stretches (`printf '…' | curl … -X method
 * 'URL' \`), so under 1,000 bytes.
 */
const STRETCH = 300

/**
 * A word's pieces, a string to go outside quotes as it is (`\'`), an array of units (a character, `\011`, `%%`) to go
 * in single quotes, with a line break wherever a line of the word would pass STRETCH bytes: a backslash and a
 * newline, which the four shells drop outside quotes (`'ab'\⏎'cd'` is `abcd`); in a quoted run, after closing it.
 * A unit is never cut.
 * @param {Array<string | string[]>} pieces
 */
function lined(pieces) {
  let word = ''
  let used = 0
  /** @param {string} text @param {boolean} inQuotes @param {number} after bytes that must still fit on its line */
  const put = (text, inQuotes, after) => {
    if (used > 0 && used + utf8(text).length + after > STRETCH) {
      word += inQuotes ? "'\\\n'" : '\\\n'
      used = inQuotes ? 1 : 0
    }
    word += text
    used = text === '\n' ? 0 : used + utf8(text).length
  }
  for (const piece of pieces) {
    if (typeof piece === 'string') put(piece, false, 0)
    else {
      put("'", false, 2)
      for (const unit of piece) put(unit, true, 1)
      put("'", true, 0)
    }
  }
  return word
}

/**
 * One word, read the same by bash, zsh, dash (POSIX sh) and fish, however hostile the text. Text goes in single
 * quotes, where none of them expands anything (not `$`, backticks, nor history's `!` in an interactive bash or zsh);
 * `'` and `\` go outside them, each after a backslash: fish reads `\'` and `\\` inside single quotes as escapes, and
 * all four read them outside as the character itself. A text with something a terminal would not show, or whose
 * bytes are not its UTF-8, is written by printf in a command substitution, `"$(printf '…')"` (fish 3.4 and later):
 * no control character reaches the terminal, and no `$'…'`, which dash lacks. A substitution drops trailing
 * newlines: they follow it in quotes.
 * @param {string} text
 * @param {Encoding} [encoding]
 */
function quoted(text, encoding = utf8) {
  if (UNSHOWN.test(text) || (encoding !== utf8 && /[\u0080-\u00ff]/.test(text))) {
    const written = text.replace(/\n+$/, '')
    const newlines = text.slice(written.length)
    return `"$(${printfOf(written, encoding)})"${newlines ? `'${newlines}'` : ''}`
  }
  if (text === '') return "''"
  // A `^` first on a line goes outside the quotes too: an interactive bash reads it as `^old^new` even inside them.
  const runs = text.match(/(?:[^'\\^]|(?<!\n)\^)+|['\\^]/g) ?? []
  return lined(runs.map((run) => (/^['\\^]$/.test(run) ? `\\${run}` : Array.from(run))))
}

/** A plain word (an HTTP method) as it is; anything else quoted. @param {string} text */
const word = (text) => (/^[A-Za-z0-9_-]+$/.test(text) ? text : quoted(text))

/**
 * No argument of a command can hold a NUL (nor can HTTP carry one in a method, URL or header): a body can, through a
 * pipe. @param {string} text @param {string} part
 */
function withoutNul(text, part) {
  if (text.includes('\u0000'))
    throw new Error(
      `This request cannot be copied as curl: its ${part} holds a NUL character, which no command line can pass on.`,
    )
  return text
}

/**
 * The request as a curl command, one for bash, zsh, dash (POSIX sh) and fish alike (see `quoted`): its method, its
 * whole URL, its headers as journaled and its body. A body with what a terminal would not show as text (control
 * characters, NUL, bidi marks) goes through a pipe: printf writes it to curl's stdin. A credential the journal
 * shows only by its end (a key the sandbox did not issue) becomes `"$API_KEY"`, for the shell to fill in, last in its
 * word and in double quotes (the key passed as it is, spaces, `*` and `$` too): the command never carries a key it
 * was not given.
 * @param {JournalEntry} entry
 * @param {string} base the sandbox's origin and root, such as `http://localhost:4010/sessions/ci-1`
 */
export function curlOf(entry, base) {
  const url = base + entry.path + queryText(entry.query, encodeURIComponent)
  // --globoff: a journaled path keeps its brackets, and curl would make `[1-99999999]` that many requests.
  const body = entry.request?.body
  // With `-X HEAD` curl waits for the body a GET's answer would have, then fails; `--head` cannot send a body.
  const method = entry.method === 'HEAD' && !body ? '--head' : `-X ${word(withoutNul(entry.method, 'method'))}`
  const lines = [`curl --globoff ${method} ${quoted(withoutNul(url, 'URL'))}`]
  for (const [name, values] of Object.entries(entry.request?.headers ?? {})) {
    if (SET_BY_THE_CLIENT.has(name.toLowerCase())) continue
    for (const value of withoutNul(values, `header ${name}`).split('\n')) {
      // curl leaves out a header whose value is empty after the colon: `name;` is how it sends one.
      const header = value === '' ? `${name};` : `${name}: ${value.replace(SHOWN_BY_ITS_END, '')}`
      const key = SHOWN_BY_ITS_END.test(value) ? '"$API_KEY"' : ''
      lines.push(`-H ${quoted(header, headerEncoding(header))}${key}`)
    }
  }
  if (!body) return lines.join(' \\\n  ')
  // curl sends a body without a type as a form (application/x-www-form-urlencoded); with `Content-Type:`, untyped.
  const named = Object.keys(entry.request?.headers ?? {}).map((name) => name.toLowerCase())
  if (!named.includes('content-type')) lines.push("-H 'Content-Type:'")
  if (!UNSHOWN.test(body)) return [...lines, `--data-raw ${quoted(body)}`].join(' \\\n  ')
  return `${printfOf(body)} | ${[...lines, '--data-binary @-'].join(' \\\n  ')}`
}

/**
 * The same request again, for `fetch`: its journaled headers, with the sandbox's own key whole when it issued the
 * one sent; a credential shown by its end only is left out (no key is made up), and so is a body the journal cut.
 * @param {JournalEntry} entry
 * @param {Keys} keys the sandbox's issued keys
 * @returns {{ path: string, init: RequestInit, left: string[] }} `left`: what the replay could not send, to say
 */
export function replayOf(entry, keys) {
  /** @type {Record<string, string>} */
  const headers = {}
  const left = []
  for (const [name, value] of Object.entries(entry.request?.headers ?? {})) {
    const lower = name.toLowerCase()
    if (SET_BY_THE_CLIENT.has(lower) || value.includes('\n')) continue
    if (lower === 'authorization') {
      // The keys list shows a user's own key by its end too: only a key shown whole is one to send.
      const whole = entry.key != null && !SHOWN_BY_ITS_END.test(entry.key)
      if (whole && keys.some(({ key }) => key === entry.key)) headers[name] = `Bearer ${entry.key}`
      else left.push(`its key (the journal shows only ${entry.key ?? 'part of it'})`)
    } else if (SHOWN_BY_ITS_END.test(value)) left.push(`${name} (the journal shows only its end)`)
    else headers[name] = value
  }
  if (entry.query_truncated) left.push('the query parameters the journal did not keep (past the first 100)')
  if (entry.request?.headers_truncated) left.push('the headers the journal did not keep')
  const cut = entry.request?.body_truncated === true
  if (cut) left.push('its body (the journal kept only its start)')
  return {
    path: entry.path + queryText(entry.query, encodeURIComponent),
    init: { method: entry.method, headers, body: cut ? undefined : (entry.request?.body ?? undefined) },
    left,
  }
}

/**
 * The exchange as the journal keeps it: the request line, status, time and key; the reason and the fix for an
 * error; then the request's and the answer's headers and bodies, each body whole.
 * @param {JournalEntry} entry
 * @param {Keys} keys
 */
export function renderExchange(entry, keys) {
  const error = parse(entry.response?.body)?.error
  return el(
    'div',
    { class: 'exchange' },
    el('h2', {}, `${entry.method} ${entry.path}${queryText(entry.query)}`),
    el('p', {}, `${entry.status} in ${entry.duration_ms} ms, ${entry.timestamp}, key ${entry.key ?? '(none)'}`),
    // append would show an undefined as the word "undefined": a part that is not there is left out.
    error ? reasonOf(error, keys) : undefined,
    el('h3', {}, 'Request'),
    headersOf(entry.request?.headers),
    bodyOf(entry.request),
    el('h3', {}, 'Answer'),
    headersOf(entry.response?.headers),
    bodyOf(entry.response),
  )
}

/**
 * The journaled answer and the replay's, side by side.
 * @param {JournalEntry} entry
 * @param {{ status: number, text: string }} replayed
 * @param {string[]} left what the replay could not send
 */
export function renderReplay(entry, replayed, left) {
  return el(
    'section',
    { class: 'replay', 'aria-label': 'Replay' },
    el('h3', {}, 'Replayed'),
    el(
      'p',
      {},
      'The replay is a real API request: the journal lists it and the usage report counts it like any other.',
      left.length > 0 ? ` Sent without ${left.join(', ')}.` : '',
    ),
    el(
      'div',
      { class: 'compare' },
      el('div', { 'data-answer': 'journaled' }, el('h4', {}, `Then: ${entry.status}`), bodyOf(entry.response)),
      el(
        'div',
        { 'data-answer': 'replayed' },
        el('h4', {}, `Now: ${replayed.status}`),
        bodyOf({ body: replayed.text, body_truncated: false }),
      ),
    ),
  )
}

/** @param {Record<string, string>} [headers] */
function headersOf(headers = {}) {
  return el(
    'pre',
    {},
    // The journal keeps several Set-Cookies in one value, one a line: each is shown as it came, with its name.
    Object.entries(headers)
      .flatMap(([name, value]) => value.split('\n').map((one) => `${name}: ${one}`))
      .join('\n') || '(none)',
  )
}

/** @param {{ body?: string | null, body_truncated?: boolean } | undefined} message */
function bodyOf(message) {
  if (!message?.body) return el('p', {}, '(no body)')
  const parsed = parse(message.body)
  const text = parsed ? JSON.stringify(parsed, null, 2) : message.body
  return el(
    'pre',
    { class: 'body' },
    text + (message.body_truncated ? '\n… (cut: the journal keeps the start of a long body)' : ''),
  )
}

/**
 * @param {string | null | undefined} text
 * @returns {{ error?: ApiError } | undefined}
 */
function parse(text) {
  try {
    return text ? JSON.parse(text) : undefined
  } catch {
    return undefined
  }
}
