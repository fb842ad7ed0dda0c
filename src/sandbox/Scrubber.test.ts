import { describe, expect, it } from 'vitest'
import { defaultOrganizations } from '../seed/fixtures.js'
import {
  journalScrubber,
  knownScrubber,
  requestScrubber,
  SCRUBBED_FROM,
  Scrubber,
  type SecretHolder,
  scrubberOf,
} from './Scrubber.js'

const ADMIN = 'adm1n-T0ken-very-secret-9876'
const ORG_KEY = 'sk_live_ORGKEY1234567wxyz'

const builtIn: SecretHolder = { options: {}, organizations: defaultOrganizations }
const withSecrets: SecretHolder = {
  options: { adminToken: ADMIN },
  organizations: [...defaultOrganizations, { keys: [{ key: ORG_KEY }] }],
}

describe('Scrubber.text', () => {
  const scrubber = new Scrubber([ADMIN, ORG_KEY], ADMIN)

  it.each([
    ['a bare query name', `/v1/calls?${ADMIN}`, '/v1/calls?(admin token)'],
    ['a path segment', `/v1/calls/${ORG_KEY}`, '/v1/calls/…wxyz'],
    ['a JSON body', `{"api_key":"${ORG_KEY}","notes":"${ADMIN}"}`, '{"api_key":"…wxyz","notes":"(admin token)"}'],
    ['each of several', `${ORG_KEY} ${ORG_KEY}`, '…wxyz …wxyz'],
    ['percent-encoded, either case', '/v1/calls/sk%5flive%5FORGKEY1234567wxyz', '/v1/calls/…wxyz'],
    ['JSON-escaped', '{"notes":"adm1n\\u002dT0ken-very-secret-9876"}', '{"notes":"(admin token)"}'],
    ['an HTML page', `<p>Bearer ${ORG_KEY} is not valid</p>`, '<p>Bearer …wxyz is not valid</p>'],
    ['nothing else', 'sk_live_ORGKEY1234567wxy is one short', 'sk_live_ORGKEY1234567wxy is one short'],
    ['a built-in key, whole', 'Send Bearer sk_sandbox_all', 'Send Bearer sk_sandbox_all'],
  ])('replaces %s', (_, text, scrubbed) => {
    expect(scrubber.text(text)).toBe(scrubbed)
  })

  it('finds a secret with a quote, a backslash or a space, as JSON and a query write them', () => {
    const odd = new Scrubber(['pa"ss\\wo rd/x1'])
    expect(odd.text('{"p":"pa\\"ss\\\\wo rd\\/x1"}')).toBe('{"p":"…d/x1"}')
    expect(odd.text('?p=pa%22ss%5Cwo+rd%2Fx1')).toBe('?p=…d/x1')
  })

  it('finds a secret too long or too many for the pattern as sent', () => {
    const long = `tok_${'Ab'.repeat(30_000)}wxyz`
    const many = Array.from({ length: 40 }, (_, i) => `cookie-value-${String(i).padStart(4, '0')}`)
    const scrubber = new Scrubber([long, ...many])
    expect(scrubber.text(`[${long}]`)).toBe('[…wxyz]')
    expect(scrubber.text(many.join(' '))).toBe(many.map((value) => `…${value.slice(-4)}`).join(' '))
    expect(scrubber.text(`{"notes":"${long.slice(0, 4_000)}`, true)).toBe('{"notes":"…')
  })

  it('replaces the longer of two secrets, one inside the other, whole', () => {
    expect(new Scrubber(['token-0123456789', 'token-0123456789-and-more']).text('token-0123456789-and-more')).toBe(
      '…more',
    )
  })

  it.each([
    ['a text cut with …', `got <p>Bearer ${ORG_KEY.slice(0, 12)}…`, 'got <p>Bearer …'],
    ['a body cut at its end', `{"notes":"${ADMIN.slice(0, 9)}`, '{"notes":"…'],
    ['a value shortened inside its quotes', `"<p>Bearer ${ORG_KEY.slice(0, 12)}"`, '"<p>Bearer …"'],
    ['no more than 4 characters of one', 'ends in sk_l…', 'ends in sk_l…'],
    ['a whole one, then a cut', `${ORG_KEY} and ${ORG_KEY.slice(0, 6)}…`, '…wxyz and …'],
  ])('drops the beginning of a secret at the end of %s', (_, text, scrubbed) => {
    expect(scrubber.text(text, true)).toBe(scrubbed)
  })

  it("replaces them in a value's strings and keys", () => {
    const details = [{ field: ORG_KEY, code: 'unknown_field', message: `${ORG_KEY} is not a field.` }]
    expect(scrubber.value(details)).toEqual([
      { field: '…wxyz', code: 'unknown_field', message: '…wxyz is not a field.' },
    ])
    expect(scrubber.value({ [ADMIN]: [1, null, true] })).toEqual({ '(admin token)': [1, null, true] })
  })
})

describe('scrubberOf', () => {
  const none = (headers: [string, string][], query?: string) =>
    scrubberOf(builtIn, headers, query === undefined ? undefined : new URLSearchParams(query))

  it('finds nothing in the usual request: a built-in key, no admin token', () => {
    const scrubber = none([
      ['authorization', 'Bearer sk_sandbox_all'],
      ['content-type', 'application/json'],
      ['cookie', 'theme=dark'],
    ])
    expect(scrubber).toBe(Scrubber.NONE)
    expect(scrubber.finds).toBe(false)
  })

  it.each([
    ['a credential shorter than the minimum', [['x-api-key', 'k'.repeat(SCRUBBED_FROM - 1)]], undefined],
    ['a part of a built-in key', [['authorization', 'Bearer sk_sandbox_a']], undefined],
    ["the API's own parameters", [], 'status=completed&cursor=eyJpZCI6ImNhbGxfMDEyMzQ1Njc4OSJ9'],
  ] as const)('looks for nothing in %s', (_, headers, query) => {
    expect(none([...headers] as [string, string][], query)).toBe(Scrubber.NONE)
  })

  it.each([
    ['an Authorization', [['authorization', 'Bearer sk_live_UNKNOWN0000abcd']], undefined],
    ['a credential-named header', [['x-jwt-assertion', 'sk_live_UNKNOWN0000abcd']], undefined],
    ['a cookie', [['cookie', 'theme=dark; sid=sk_live_UNKNOWN0000abcd']], undefined],
    ['a credential-named query parameter', [], 'bearer=sk_live_UNKNOWN0000abcd&status=completed'],
  ] as const)('looks for the credential of %s, wherever it is', (_, headers, query) => {
    const scrubber = none([...headers] as [string, string][], query)
    expect(scrubber.text('{"notes":"sk_live_UNKNOWN0000abcd"}')).toBe('{"notes":"…abcd"}')
  })

  it("looks for the world's secrets, its own organizations' keys but not the built-in ones", () => {
    const scrubber = scrubberOf(withSecrets, [['authorization', 'Bearer sk_sandbox_all']], undefined)
    expect(scrubber).toBe(knownScrubber(withSecrets))
    expect(scrubber.text(`${ADMIN} ${ORG_KEY} sk_sandbox_all`)).toBe('(admin token) …wxyz sk_sandbox_all')
  })

  it('shows a credential the request carried that is the admin token as the admin token', () => {
    const scrubber = scrubberOf(withSecrets, [['x-api-key', 'other-credential-0000zzzz']], undefined)
    expect(scrubber.text(`${ADMIN} other-credential-0000zzzz`)).toBe('(admin token) …zzzz')
  })
})

describe('requestScrubber: a request’s own rule, from its URL as Request wrote it', () => {
  const carried = 'sk_live_UNKNOWN0000abcd'
  it.each([
    ['its query', `https://api.example.com/v1/calls?bearer=${carried}&status=completed`, '…abcd'],
    ['its query, before a fragment', `https://api.example.com/v1/calls?bearer=${carried}#top`, '…abcd'],
    ['a fragment alone, which is no query', `https://api.example.com/v1/calls#?bearer=${carried}`, carried],
    ['no query', 'https://api.example.com/v1/calls', carried],
  ])('finds a credential-named parameter in %s', (_, url, shown) => {
    expect(requestScrubber(builtIn, new Request(url)).text(carried)).toBe(shown)
  })
})

describe('journalScrubber: the last to ask', () => {
  const carried = 'sk_live_UNKNOWN0000abcd'

  it('finds the credentials of the request’s headers and of the query it is given, the world’s too', () => {
    const url = new URL(`https://api.example.com/v1/calls?token=${carried}`)
    const request = new Request(url, { headers: { 'X-Api-Key': 'sk_live_OTHER00000wxyz' } })
    const scrubber = journalScrubber(withSecrets, request, url.searchParams)
    expect(scrubber.text(`${carried} sk_live_OTHER00000wxyz ${ORG_KEY} ${ADMIN}`)).toBe(
      '…abcd …wxyz …wxyz (admin token)',
    )
    expect(journalScrubber(withSecrets, new Request(url), new URLSearchParams()).text(carried)).toBe(carried)
  })

  it('is the rule the request’s error was scrubbed with, when it had one', () => {
    const request = new Request(`https://api.example.com/v1/calls?token=${carried}`)
    const made = requestScrubber(builtIn, request)
    expect(journalScrubber(builtIn, request, new URLSearchParams())).toBe(made)
  })
})

describe('Scrubber.including: a request’s own credentials', () => {
  const sent = Array.from({ length: 40 }, (_, i) => `sent-credential-${String(i).padStart(3, '0')}-${'x'.repeat(200)}`)
  const scrubber = new Scrubber([ADMIN], ADMIN).including(sent, ADMIN)

  it('finds them as sent, percent-encoded and JSON-escaped, beside the known secrets', () => {
    const quoted = 'a "quoted" credential'
    const withQuote = new Scrubber([]).including([quoted])
    expect(withQuote.text(`{"notes":${JSON.stringify(quoted)}}`)).toBe('{"notes":"…tial"}')
    expect(withQuote.text(`/v1/calls?x=${encodeURIComponent(quoted)}`)).toBe('/v1/calls?x=…tial')
    expect(scrubber.text(`${sent[0]} and ${ADMIN}`)).toBe('…xxxx and (admin token)')
  })

  it('looks for the first 16 only: what a request can make the rule cost is bounded', () => {
    expect(scrubber.text(sent[15]!)).toBe('…xxxx')
    expect(scrubber.text(sent[16]!)).toBe(sent[16])
  })

  it('keeps the known rule as it is when the request carried nothing new', () => {
    const known = new Scrubber([ADMIN], ADMIN)
    expect(known.including([ADMIN], ADMIN)).toBe(known)
  })
})
