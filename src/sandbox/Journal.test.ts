import { emptyRecord } from '../data/emptyRecord.js'
import { describe, expect, it } from 'vitest'
import { mulberry32 } from '../../test/support/prng.js'
import type { JournalEntry } from '../schemas/index.js'
import {
  Journal,
  JOURNAL_BODY_BYTES,
  JOURNAL_HEADER_CHARACTERS,
  JOURNAL_HEADERS,
  cutBody,
  cutHeaders,
} from './Journal.js'
import { JournalBudget, parseJournalBytes } from './JournalBudget.js'

function entry(id: number, bodyBytes = 0): JournalEntry {
  const body = bodyBytes > 0 ? 'x'.repeat(bodyBytes) : null
  return {
    request_id: `req_${id}`,
    method: 'POST',
    path: '/v1/contacts',
    query: {},
    status: 201,
    key: 'sk_sandbox_all',
    duration_ms: 1,
    timestamp: '2026-11-20T12:00:00.000Z',
    request: { headers: {}, headers_truncated: false, body, body_truncated: false },
    response: { headers: {}, headers_truncated: false, body: null, body_truncated: false },
  }
}

describe('Journal', () => {
  it('keeps the newest entries up to its size, newest first', () => {
    const journal = new Journal(3)
    for (let i = 1; i <= 5; i++) journal.record(entry(i))
    expect(journal.entries().map(({ request_id }) => request_id)).toEqual(['req_5', 'req_4', 'req_3'])
    expect(journal.size).toBe(3)
  })

  it('keeps no more than its budget: the oldest go first, and a clear gives every byte back', () => {
    const budget = new JournalBudget(20_000)
    const journal = new Journal(1_000, budget)
    for (let i = 1; i <= 100; i++) {
      journal.record(entry(i, 3_000))
      expect(budget.bytes).toBeLessThanOrEqual(20_000)
      expect(budget.bytes).toBe(journal.bytes)
    }
    const kept = journal.entries().map(({ request_id }) => request_id)
    expect(kept.length).toBeGreaterThan(1)
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => `req_${100 - i}`))
    journal.clear()
    expect([journal.size, journal.bytes, budget.bytes, budget.journals]).toEqual([0, 0, 0, 0])
  })
})

describe('JournalBudget, shared by the journals of every session', () => {
  const ids = (journal: Journal) => journal.entries().map(({ request_id }) => request_id)

  it("spends a flood's own entries: a quiet journal keeps all of its own", () => {
    const budget = new JournalBudget(100_000)
    const quiet = new Journal(1_000, budget)
    const flood = new Journal(1_000, budget)
    for (let i = 1; i <= 5; i++) quiet.record(entry(i, 1_000))
    for (let i = 1; i <= 1_000; i++) {
      flood.record(entry(i, 2_000))
      expect(budget.bytes).toBeLessThanOrEqual(100_000)
    }
    expect(ids(quiet)).toEqual(['req_5', 'req_4', 'req_3', 'req_2', 'req_1'])
    expect(ids(flood)[0]).toBe('req_1000')
    expect(budget.bytes).toBe(quiet.bytes + flood.bytes)
  })

  it('shares the bound between floods of the same size, each keeping its newest entries', () => {
    const budget = new JournalBudget(90_000)
    const journals = Array.from({ length: 3 }, () => new Journal(1_000, budget))
    for (let i = 1; i <= 300; i++) for (const journal of journals) journal.record(entry(i, 2_000))
    const sizes = journals.map(({ size }) => size)
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1)
    for (const journal of journals) expect(ids(journal)[0]).toBe('req_300')
    expect(budget.bytes).toBeLessThanOrEqual(90_000)
  })

  it('keeps its count true and within the bound whatever the journals do, and gives the most back from the biggest', () => {
    const budget = new JournalBudget(200_000)
    const journals = Array.from({ length: 40 }, () => new Journal(50, budget))
    const next = mulberry32(7)
    const random = (below: number) => Math.floor(next() * below)
    for (let i = 0; i < 5_000; i++) {
      const journal = journals[random(journals.length)]!
      if (random(100) === 0) journal.clear()
      else journal.record(entry(i, random(3_000)))
      expect(budget.bytes).toBe(journals.reduce((sum, { bytes }) => sum + bytes, 0))
      expect(budget.bytes).toBeLessThanOrEqual(200_000)
      expect(budget.journals).toBe(journals.filter(({ size }) => size > 0).length)
    }
    // Then no clears: evictions come from the biggest, so every journal ends about level with the others.
    for (let i = 0; i < 2_000; i++) journals[random(journals.length)]!.record(entry(i, random(3_000)))
    const held = journals.map(({ bytes }) => bytes)
    expect(Math.max(...held) - Math.min(...held)).toBeLessThan(2 * 4_300)
  })

  it('takes from a journal past its capacity without counting its dropped entries', () => {
    const budget = new JournalBudget(1_000_000)
    const journal = new Journal(10, budget)
    for (let i = 1; i <= 50; i++) journal.record(entry(i, 100))
    expect(journal.size).toBe(10)
    expect(budget.bytes).toBe(journal.bytes)
    expect(ids(journal)).toEqual(Array.from({ length: 10 }, (_, i) => `req_${50 - i}`))
  })

  it.each([
    ['1048576', 1_048_576],
    ['256MiB', 256 * 1024 ** 2],
    ['1.5GiB', 1.5 * 1024 ** 3],
    ['2048 KiB', 2 * 1024 ** 2],
    [64 * 1024 ** 3, 64 * 1024 ** 3],
  ])('reads the size %s', (size, bytes) => {
    expect(parseJournalBytes(size)).toBe(bytes)
  })

  it.each(['', '1KiB', '100', '256MB', '-1MiB', '65GiB', 'lots', 1.5])(
    'refuses the size %j, saying what it takes',
    (size) => {
      expect(() => parseJournalBytes(size)).toThrow(/from 1 MiB to 64 GiB, in bytes or such as 256MiB/)
    },
  )
})

describe('cutHeaders', () => {
  it('keeps a value up to its length whole, and cuts a longer one with a marker that says how long it was', () => {
    const whole = 'x'.repeat(JOURNAL_HEADER_CHARACTERS)
    const long = 'y'.repeat(60 * 1024)
    expect(
      cutHeaders(
        recordOf([
          ['x-whole', whole],
          ['x-pad', long],
        ]),
      ),
    ).toEqual({
      headers: {
        'x-whole': whole,
        'x-pad': `${'y'.repeat(JOURNAL_HEADER_CHARACTERS)}… (cut: 61440 characters in all)`,
      },
      headers_truncated: false,
    })
  })

  it('keeps at most its count of headers, and says when it left some out', () => {
    const many = Array.from({ length: 200 }, (_, i): [string, string] => [`x-h${i}`, 'v'])
    const kept = cutHeaders(recordOf(many))
    expect(Object.keys(kept.headers)).toHaveLength(JOURNAL_HEADERS.count)
    expect(kept.headers_truncated).toBe(true)
  })

  it('keeps at most its characters of names and values, leaving out a header that would pass them', () => {
    const kilobyte = 'z'.repeat(1_000)
    const headers = Array.from({ length: 40 }, (_, i): [string, string] => [`x-k${i}`, kilobyte])
    const kept = cutHeaders(recordOf([...headers, ['x-last', 'small']]))
    const characters = Object.entries(kept.headers).reduce((sum, [name, value]) => sum + name.length + value.length, 0)
    expect(characters).toBeLessThanOrEqual(JOURNAL_HEADERS.characters)
    expect(kept.headers['x-k0']).toBe(kilobyte)
    expect(kept.headers['x-last']).toBe('small')
    expect(kept.headers_truncated).toBe(true)
  })

  it('keeps a header named __proto__ like any other', () => {
    expect(Object.entries(cutHeaders(recordOf([['__proto__', 'kept']])).headers)).toEqual([['__proto__', 'kept']])
  })

  it('gives back the headers themselves when nothing is cut, up to its count and characters exactly', () => {
    const within = recordOf([
      ['x-whole', 'x'.repeat(JOURNAL_HEADER_CHARACTERS)],
      ...Array.from({ length: JOURNAL_HEADERS.count - 1 }, (_, i): [string, string] => [`x-h${i}`, 'v']),
    ])
    expect(cutHeaders(within)).toEqual({ headers: within, headers_truncated: false })
    expect(cutHeaders(within).headers).toBe(within)
    const name = 'x-full'
    const full = recordOf([[name, 'f'.repeat(JOURNAL_HEADER_CHARACTERS)]])
    for (let i = 0; Object.keys(full).length < 16; i++) full[`x-f${String(i).padStart(2, '0')}`] = 'f'.repeat(1_018)
    const characters = Object.entries(full).reduce((sum, [key, value]) => sum + key.length + value.length, 0)
    expect(characters).toBeLessThanOrEqual(JOURNAL_HEADERS.characters)
    expect(cutHeaders(full).headers).toBe(full)
    full['x-more'] = 'm'.repeat(JOURNAL_HEADERS.characters - characters - 'x-more'.length + 1)
    expect(cutHeaders(full)).toEqual({ headers: { ...full, 'x-more': undefined }, headers_truncated: true })
  })
})

/** Headers as `messageOf` collects them: a record whose names inherit nothing. */
function recordOf(pairs: [string, string][]): Record<string, string> {
  const record = emptyRecord<string>()
  for (const [name, value] of pairs) record[name] = value
  return record
}

describe('cutBody', () => {
  const bytes = (text: string) => new TextEncoder().encode(text)

  it('keeps a body up to its bytes whole, and none for an empty one', () => {
    expect(cutBody(bytes('x'.repeat(JOURNAL_BODY_BYTES)))).toEqual({
      body: 'x'.repeat(JOURNAL_BODY_BYTES),
      body_truncated: false,
    })
    expect(cutBody(bytes(''))).toEqual({ body: null, body_truncated: false })
    expect(cutBody(null)).toEqual({ body: null, body_truncated: false })
  })

  it('cuts a longer one at its bytes and says so', () => {
    expect(cutBody(bytes('x'.repeat(JOURNAL_BODY_BYTES + 1)))).toEqual({
      body: 'x'.repeat(JOURNAL_BODY_BYTES),
      body_truncated: true,
    })
    expect(cutBody(bytes('{"notes":"long"}'), 9)).toEqual({ body: '{"notes":', body_truncated: true })
  })
})

describe("a long body's text", () => {
  const bytes = (text: string) => new TextEncoder().encode(text)

  it('is its own, whether the last body was the same, of the same length or another', () => {
    const long = (letter: string) => bytes(`{"data":"${letter.repeat(2_000)}"}`)
    const text = (letter: string) => `{"data":"${letter.repeat(2_000)}"}`
    expect(cutBody(long('a')).body).toBe(text('a'))
    expect(cutBody(long('a')).body).toBe(text('a'))
    expect(cutBody(long('b')).body).toBe(text('b'))
    const changed = long('b')
    changed[changed.length - 3] = 'c'.charCodeAt(0)
    expect(cutBody(changed).body).toBe(`${text('b').slice(0, -3)}c"}`)
    expect(cutBody(long('b').subarray(0, 1_500)).body).toBe(text('b').slice(0, 1_500))
  })

  it('is right for a kept page sent again behind another first chunk, of the same length or not', () => {
    const page = bytes(`[${'"x",'.repeat(2_000)}"y"]`)
    const textOf = (first: string) => `${first}${new TextDecoder().decode(page)}`.slice(0, JOURNAL_BODY_BYTES)
    for (const first of ['{"data":', '{"data":', '{"DATA":', '{"items":', '{"data":'])
      expect(cutBody([bytes(first), page, bytes('}')]).body).toBe(textOf(first))
    // The first chunk now ends with what began the page: the same bytes so far, the page one byte further on.
    expect(cutBody([bytes('{"data":['), page]).body).toBe(textOf('{"data":['))
  })

  it('is the same in the chunks an answer is sent in, cut across them, whether the last body was the same or not', () => {
    const whole = bytes(`{"data":[${'"x",'.repeat(2_000)}"y"],"meta":{}}`)
    const chunksOf = (of: Uint8Array) => [of.subarray(0, 8), of.subarray(8, 5_000), of.subarray(5_000)]
    const cut = cutBody(whole)
    expect(cut.body_truncated).toBe(true)
    expect(cutBody(chunksOf(whole))).toEqual(cut)
    expect(cutBody(chunksOf(whole))).toEqual(cut)
    const changed = whole.slice()
    changed[4] = 'D'.charCodeAt(0)
    expect(cutBody(chunksOf(changed)).body).toBe(`{"daDa"${cut.body!.slice(7)}`)
    expect(cutBody([bytes('{"a":'), bytes('1}')])).toEqual({ body: '{"a":1}', body_truncated: false })
    expect(cutBody([bytes('{"a":'), bytes('12}')], 6)).toEqual({ body: '{"a":1', body_truncated: true })
    expect(cutBody([bytes(''), bytes('')])).toEqual({ body: null, body_truncated: false })
  })
})
