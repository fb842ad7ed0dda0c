import { afterAll, describe, expect, it } from 'vitest'
import { curlOf } from '../../console/exchange.js'
import type { JournalEntry } from '../../src/schemas/index.js'
import { bytesOf, pasteBench, SHELLS, type Sent, type Shell } from './pastedShells.js'

const BASE = 'http://localhost:4010/sessions/ci-1'
/** The key the user's shell holds, as hostile as the rest: `"$API_KEY"` must hand it to curl as it is. */
const API_KEY = `sk_'"$(touch pwned)\`touch pwned\`!!*; touch pwned`
const bench = pasteBench(API_KEY)
afterAll(bench.clean)

/** A command some quoting let through: it makes `pwned` in the shell's folder, where no file may appear. */
const PWN = 'touch pwned'

interface Parts {
  method?: string
  path?: string
  query?: JournalEntry['query']
  headers?: Record<string, string>
  body?: string | null
}

function entryOf({ method = 'POST', path = '/v1/contacts', query = {}, headers = {}, body = null }: Parts) {
  return {
    request_id: 'req_1',
    method,
    path,
    query,
    status: 401,
    key: null,
    duration_ms: 1,
    timestamp: '2026-11-20T12:00:00.000Z',
    request: { headers, body, body_truncated: false, headers_truncated: false },
    response: { headers: {}, body: null, body_truncated: false, headers_truncated: false },
  } satisfies JournalEntry
}

/** What curl, run by the copied command, must be given: the journaled request, its bytes in UTF-8. */
function expectedOf(entry: JournalEntry): Sent {
  const query = Object.entries(entry.query).flatMap(([name, value]) =>
    [value].flat().map((one) => `${encodeURIComponent(name)}=${encodeURIComponent(one)}`),
  )
  const setByCurl = ['host', 'content-length', 'connection', 'transfer-encoding', 'accept-encoding']
  return {
    globoff: true,
    method: bytesOf(entry.method),
    url: bytesOf(BASE + entry.path + (query.length > 0 ? `?${query.join('&')}` : '')),
    headers: Object.entries(entry.request?.headers ?? {})
      .filter(([name]) => !setByCurl.includes(name))
      .flatMap(([name, values]) =>
        values.split('\n').map((value): [string, string] => {
          // A credential the journal shows by its end (`…4321`) is the one in the user's $API_KEY.
          const shown = value.replace(/…\S{0,4}$/, '')
          const key = shown === value ? '' : API_KEY
          // A header's bytes are its characters (one a byte, as HTTP reads them); UTF-8 past U+00FF only.
          const encode = /[\u0100-\uffff]/.test(name + shown) ? bytesOf : (text: string) => text
          return [encode(name), encode(shown) + key]
        }),
      ),
    body: entry.request?.body ? bytesOf(entry.request.body) : undefined,
    unknown: [],
  }
}

/** What a terminal shows otherwise than as text: controls but the newline, format characters (bidi), separators. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for.
const UNSHOWN = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u

function pasteAndCheck(shell: Shell, name: string, entry: JournalEntry) {
  const command = curlOf(entry, BASE)
  const context = `${shell.name}, ${name}, pasting:\n${command}`
  const { status, stderr, sent, left } = bench.paste(shell, command)
  // An interactive shell writes its prompts and the lines it reads on stderr: only `-c` must keep it empty.
  const noise = 'stdin' in shell ? '' : stderr
  expect({ status, sent, left, stderr: noise }, `${context}\nstderr: ${stderr}`).toEqual({
    status: 0,
    sent: [expectedOf(entry)],
    left: [],
    stderr: '',
  })
  expect(command, context).not.toMatch(UNSHOWN)
  // A terminal read by the line keeps at most 4,095 bytes of a line on Linux, and 1,024 (MAX_CANON) on macOS.
  const longest = Math.max(...command.split('\n').map((line) => Buffer.byteLength(line)))
  expect(longest, context).toBeLessThanOrEqual(1024)
}

/** Requests a hostile client can have journaled, each part in turn. */
const TABLE: [string, Parts][] = [
  ["fish's \\' in single quotes (issue 43)", { body: `a\\';${PWN};#` }],
  ["a control character where dash has no $'…' (issue 43)", { body: `"\u0001' $(${PWN}) #\n"` }],
  ['the same two in a header', { headers: { 'x-note': `a\\';${PWN};#`, 'x-also': `\u0001' $(${PWN}) #` } }],
  ['the same two in the path', { path: `/v1/contacts/a\\';${PWN};#/\u0001' $(${PWN}) #` }],
  ['the same two as the method', { method: `a\\';${PWN};#\u0001' $(${PWN}) #` }],
  [
    "history's ! around credentials shown by their ends",
    {
      headers: {
        cookie: '!#=…; echo ran=…; sid=…5a36',
        referer: 'http://x/?a=!#&access_token=…ijkl',
        'x-note': `it's "$(id)" \`id\` \\ !! !# !-1 !$ !${PWN}`,
        authorization: 'Bearer …4321',
      },
      body: `{"a": "!!", "b": "!#", "c": "!-2"}\n!${PWN}\n`,
    },
  ],
  [
    'expansions of every shell',
    {
      path: `/v1/$(${PWN})/\`${PWN}\`/(${PWN})/{a,b}/~/*/=ls/\${IFS}/$HOME/%self/$status`,
      query: { q: `'$(${PWN})'`, "it's": ['a b', '!#'] },
      headers: { 'x-note': `$(${PWN}); ${PWN} | ${PWN} & >pwned <x {a,b} ~ * ^a^b $'\\x41' ''` },
      body: `'$(${PWN})' "\`${PWN}\`" (${PWN}) ; ${PWN} #'`,
    },
  ],
  [
    'keys a terminal acts on: Ctrl-C, carriage return, tab, escape',
    { body: `{"a":"x'\u0003\r${PWN}\r\t\u001b[2K\u007f\u009b!#"}\n`, headers: { 'x-tab': `a\tb\u0003;${PWN}` } },
  ],
  ['NUL in the body', { body: `a\u0000b'\u0000$(${PWN})\u0000` }],
  [
    'bidi marks that reorder what the reader sees',
    {
      path: `/v1/contacts/\u202e'; ${PWN}; #\u202c`,
      headers: { 'x-name': `\u2066'\u2069;${PWN};\u200f\u200b\ufeff` },
      body: `\u202e"}; ${PWN}; {"\u202c\u2028\u2029`,
    },
  ],
  [
    'backslashes and quotes, runs of them',
    { path: "/\\\\'\\'\\", headers: { 'x-b': "\\'\\\\''\\" }, body: "\\\\'\\''\\" },
  ],
  ['a header sent in UTF-8, which HTTP journals a byte a character', { headers: { 'x-name': 'ZoÃ« cafÃ©' } }],
  ['a header in latin1, and one with C1 controls', { headers: { 'x-l1': 'café', 'x-c1': 'a\u0085\u009bb' } }],
  ['text beyond ASCII', { headers: { 'x-name': 'Zoë 日本 😀 e\u0301' }, body: '{"name":"Zoë 日本 😀 e\u0301"}' }],
  [
    'a lone surrogate (sent as U+FFFD, as UTF-8 has no other way)',
    { headers: { 'x-s': 'a\ud800b' }, body: 'a\udfffb' },
  ],
  [
    'an empty header value, and headers curl sets itself',
    { headers: { 'x-empty': '', host: 'h', 'content-length': '9' } },
  ],
  ['a path with brackets, not one request per value of a range', { path: '/v1/calls/[1-99999999]' }],
  ['a body sent without a Content-Type, which curl would send as a form', { body: '{"name":"Zoë"}' }],
  ['a body sent with an empty Content-Type', { headers: { 'Content-Type': '' }, body: 'a=1' }],
  ['a method that ends with a newline', { method: 'POST\n' }],
  ['HEAD, which curl sends with --head', { method: 'HEAD', headers: { accept: '*/*' } }],
  ['head in lower case, another method', { method: 'head' }],
  [
    "history's ^old^new first on a line, which an interactive bash reads even inside quotes",
    { path: '/a\n^b^c', headers: { 'x-a': '\u0001' }, body: `{\n^b^c\n^${PWN}^\n}` },
  ],
  ['the same in a body with a control character', { body: `{\n^b^c\n^${PWN}^\n}\u0001` }],
  [
    "a header longer than a terminal's line, then one its lost closing quote would leave outside quotes",
    { headers: { 'x-long': 'A'.repeat(5000), 'x-b': `; ${PWN}; echo '` } },
  ],
  [
    "a path longer than a terminal's line, then a body its lost quote would run",
    { path: `/${'a'.repeat(5000)}`, body: `;${PWN};#` },
  ],
  ['a body of quotes, each written outside the quotes, longer than a line', { body: "'".repeat(4096) }],
  ['a body of control characters, each written in octal, longer than a line', { body: '\u0001'.repeat(4096) }],
  ['long text beyond ASCII in a header and a body', { headers: { 'x-l1': 'é'.repeat(3000) }, body: '😀'.repeat(1024) }],
]

/** mulberry32: a small seeded generator, so that a failing run can be run again. */
function random(seed: number) {
  let state = seed
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const SEED = Number(process.env.CURL_FUZZ_SEED ?? 43)
const FUZZ = 40
const PIECES = [
  ...[
    "'",
    '"',
    '\\',
    "\\'",
    "'\\''",
    '\\\\',
    `$(${PWN})`,
    `\`${PWN}\``,
    `(${PWN})`,
    `;${PWN};`,
    '!',
    '!!',
    '!#',
    '!-1',
  ],
  ...['!$', '^', '|', '&', '>pwned', '#', ' ', '*', '[a]', '{a,b}', '~', '=', '%s', '$API_KEY', `\${IFS}`, '@-', '-H'],
  ...['\n', '\r', '\t', '\u0000', '\u0001', '\u0003', '\u001b[2K', '\u007f', '\u0085', '\u009b', '\u00ad', '\u200b'],
  ...['\u200f', '\u202e', '\u2066', '\u2069', '\u2028', '\ufeff', '\ud800', 'é', '日本', '😀', 'e\u0301', '…', 'a1'],
  // Longer than a line of the command: it breaks them, in quotes, outside them and in a printf format.
  ...['a'.repeat(290), "'".repeat(150), '\u0001'.repeat(80), 'é'.repeat(150)],
]

function fuzzed(next: () => number): JournalEntry {
  const int = (below: number) => Math.floor(next() * below)
  const pick = <T>(from: readonly T[]) => from[int(from.length)]!
  /** A text of pieces and random code points (any plane, controls and surrogates too). */
  const text = (length: number) =>
    Array.from({ length: int(length) }, () =>
      next() < 0.7 ? pick(PIECES) : String.fromCharCode(pick([0x20, 0x80, 0x800, 0x10000]) * next()),
    ).join('')
  // NUL: in a body only (no argument can hold one; see the test of curlOf's refusal).
  const noNul = (value: string) => value.replaceAll('\u0000', '')
  // The journal's query is decoded from UTF-8, which has no lone surrogate.
  const decoded = (value: string) => noNul(value).replace(/\p{Cs}/gu, '')
  const headers: Record<string, string> = {}
  for (let n = int(5); n > 0; n--) {
    const name = Array.from({ length: 1 + int(8) }, () => pick([..."abcxyz09-_!#$%&'*+.^`|~"])).join('')
    // A header as HTTP leaves it: no CR nor NUL, each value (one a line) without leading whitespace.
    const line = () =>
      noNul(text(6))
        .replace(/[\r\n]/g, '')
        .replace(/^[ \t\v\f]+/, '')
    headers[name] = next() < 0.2 ? `${line()}…${line().slice(0, 4).replace(/\s/g, '')}` : `${line()}\n${line()}`
  }
  return entryOf({
    method: next() < 0.5 ? pick(['GET', 'POST', 'PATCH', 'DELETE']) : noNul(text(5)) || 'GET',
    path: `/${noNul(text(8))}`,
    query: next() < 0.3 ? { [decoded(text(3))]: decoded(text(4)) } : {},
    headers,
    // Half the bodies plain text, for the quotes; half with anything, for printf.
    body: next() < 0.2 ? null : next() < 0.5 ? text(20).replace(new RegExp(UNSHOWN, 'gu'), '') : text(20),
  })
}

describe('copy as curl, pasted into bash, zsh, dash and fish with curl recorded', () => {
  for (const shell of SHELLS) {
    it(`${shell.name}: sends each hostile request of the table as journaled, and runs nothing else`, () => {
      for (const [name, parts] of TABLE) pasteAndCheck(shell, name, entryOf(parts))
    })

    it(`${shell.name}: the same for ${FUZZ} requests of random bytes (seed ${SEED}, CURL_FUZZ_SEED=)`, () => {
      const next = random(SEED)
      for (let n = 0; n < FUZZ; n++) pasteAndCheck(shell, `fuzzed request ${n} of seed ${SEED}`, fuzzed(next))
    })
  }
})

describe('copy as curl, what it will not write', () => {
  it.each([
    ['method', { method: 'PO\u0000ST' }],
    ['URL', { path: '/v1/\u0000' }],
    ['header x-a', { headers: { 'x-a': 'a\u0000b' } }],
  ])('refuses a NUL in the %s: no argument can hold one, and HTTP cannot carry it there', (part, parts) => {
    expect(() => curlOf(entryOf(parts), BASE)).toThrow(`its ${part} holds a NUL`)
  })
})
