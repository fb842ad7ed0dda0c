import { describe, expect, it } from 'vitest'
import { mulberry32 as random } from '../../test/support/prng.js'
import type { KeysetPosition } from '../data/KeysetIndex.js'
import { ApiError } from '../schemas/ApiError.js'
import { decodeCursor, encodeCursor, type CursorBinding } from './cursor.js'

const SECRET = 'call-sandbox cursor 1'
const BINDING: CursorBinding = { endpoint: 'calls', key: 'sk_sandbox_all', filters: '[["status","completed"]]' }
const POSITION: KeysetPosition = {
  t: Date.parse('2026-11-20T11:58:03.250Z'),
  id: '3f2b8c1e-9d4a-4e7b-8c2f-1a2b3c4d5e6f',
}
const URL_SAFE = /^[A-Za-z0-9_-]+$/
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

function randomUuid(next: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16)).join('')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`
}

function base64Url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url')
}

/** What `decodeCursor` threw, or a failure when it returned or threw anything but an ApiError. */
function rejection(cursor: string, binding: CursorBinding = BINDING, secret = SECRET): ApiError {
  let returned: unknown
  try {
    returned = decodeCursor(cursor, binding, secret)
  } catch (error) {
    if (error instanceof ApiError) return error
    throw new Error(`decodeCursor(${JSON.stringify(cursor.slice(0, 200))}) threw ${String(error)}, not an ApiError`)
  }
  throw new Error(
    `decodeCursor(${JSON.stringify(cursor.slice(0, 200))}) returned ${JSON.stringify(returned)} instead of throwing`,
  )
}

function expectInvalidCursor(error: ApiError, message?: RegExp): void {
  expect(error.code).toBe('invalid_cursor')
  expect(error.status).toBe(400)
  expect(error.type).toBe('invalid_request_error')
  expect(error.init.param).toBe('cursor')
  if (message) expect(error.message).toMatch(message)
}

describe('encodeCursor and decodeCursor', () => {
  it('round-trips a position', () => {
    const cursor = encodeCursor(POSITION, BINDING, SECRET)
    expect(decodeCursor(cursor, BINDING, SECRET)).toEqual(POSITION)
  })

  it('round-trips 500 random positions, and every cursor is url-safe and needs no escaping', () => {
    const next = random(1)
    const endpoints = ['calls', 'contacts', 'leads', 'appointments']
    for (let i = 0; i < 500; i++) {
      const position = { t: Math.floor(next() * 4_102_444_800_000), id: randomUuid(next) }
      const binding = {
        endpoint: endpoints[i % 4]!,
        key: `sk_${Math.floor(next() * 1e9)}`,
        filters: JSON.stringify([['since', Math.floor(next() * 1e12)]]),
      }
      const cursor = encodeCursor(position, binding, SECRET)
      expect(cursor, cursor).toMatch(URL_SAFE)
      expect(encodeURIComponent(cursor)).toBe(cursor)
      expect(decodeCursor(cursor, binding, SECRET), cursor).toEqual(position)
    }
  })

  it('round-trips the edges of an instant: 0, negative, the largest safe integer', () => {
    for (const t of [0, -1, -86_400_000, Number.MAX_SAFE_INTEGER]) {
      const position = { t, id: POSITION.id }
      expect(decodeCursor(encodeCursor(position, BINDING, SECRET), BINDING, SECRET)).toEqual(position)
    }
  })

  it('gives the same cursor for the same inputs, and another for another position', () => {
    const cursor = encodeCursor(POSITION, BINDING, SECRET)
    expect(encodeCursor({ ...POSITION }, { ...BINDING }, SECRET)).toBe(cursor)
    expect(encodeCursor({ ...POSITION, t: POSITION.t + 1 }, BINDING, SECRET)).not.toBe(cursor)
  })

  it('does not show the API key or the filters in clear', () => {
    const binding = { endpoint: 'calls', key: 'sk_sandbox_secret_key', filters: '[["phone","+14155550123"]]' }
    const decoded = Buffer.from(encodeCursor(POSITION, binding, SECRET), 'base64url').toString('utf8')
    expect(decoded).not.toContain('sk_sandbox_secret_key')
    expect(decoded).not.toContain('14155550123')
  })

  describe('rejects a cursor issued for something else, saying which', () => {
    const cursor = encodeCursor(POSITION, BINDING, SECRET)

    it.each([
      {
        why: 'another endpoint',
        binding: { ...BINDING, endpoint: 'leads' },
        message: /GET \/v1\/calls.*GET \/v1\/leads/,
      },
      {
        why: 'another endpoint with the same filters',
        binding: { ...BINDING, endpoint: 'contacts' },
        message: /issued for GET \/v1\/calls, not for GET \/v1\/contacts/,
      },
      { why: 'another key', binding: { ...BINDING, key: 'sk_sandbox_readonly' }, message: /another API key/ },
      {
        why: 'a key differing in case only',
        binding: { ...BINDING, key: 'SK_SANDBOX_ALL' },
        message: /another API key/,
      },
      { why: 'other filters', binding: { ...BINDING, filters: '[["status","failed"]]' }, message: /other filters/ },
      { why: 'no filters where it had some', binding: { ...BINDING, filters: '[]' }, message: /other filters/ },
      {
        why: 'another since',
        binding: { ...BINDING, filters: '[["since",1763640000000],["status","completed"]]' },
        message: /other filters/,
      },
    ])('$why', ({ binding, message }) => {
      expectInvalidCursor(rejection(cursor, binding), message)
    })

    it('names the first thing that differs: the endpoint before the key before the filters', () => {
      expectInvalidCursor(rejection(cursor, { endpoint: 'leads', key: 'other', filters: 'other' }), /GET \/v1\/leads/)
      expectInvalidCursor(rejection(cursor, { ...BINDING, key: 'other', filters: 'other' }), /another API key/)
    })

    it('a cursor for no filters is not one for some', () => {
      const unfiltered = encodeCursor(POSITION, { ...BINDING, filters: '[]' }, SECRET)
      expectInvalidCursor(rejection(unfiltered, BINDING), /other filters/)
    })

    it('another secret (another sandbox) makes it malformed', () => {
      expectInvalidCursor(rejection(cursor, BINDING, 'call-sandbox cursor 2'), /malformed/)
      expectInvalidCursor(rejection(cursor, BINDING, ''), /malformed/)
    })
  })

  describe('rejects every edit', () => {
    const cursors = [
      encodeCursor(POSITION, BINDING, SECRET),
      // Other lengths, so that the last character carries a different number of spare bits.
      encodeCursor({ t: 1, id: POSITION.id }, BINDING, SECRET),
      encodeCursor({ t: 12, id: POSITION.id }, { ...BINDING, endpoint: 'leads' }, SECRET),
      encodeCursor({ t: 123, id: POSITION.id }, { ...BINDING, endpoint: 'appointments' }, SECRET),
    ]

    it.each(cursors.map((cursor) => ({ cursor, length: cursor.length })))(
      'every single-character change of a $length-character cursor',
      ({ cursor }) => {
        const accepted: string[] = []
        for (let i = 0; i < cursor.length; i++) {
          for (const replacement of ALPHABET) {
            if (replacement === cursor[i]) continue
            const edited = cursor.slice(0, i) + replacement + cursor.slice(i + 1)
            try {
              decodeCursor(edited, BINDING, SECRET)
              accepted.push(`position ${i}: ${cursor[i]} -> ${replacement}`)
            } catch (error) {
              if (!(error instanceof ApiError) || error.code !== 'invalid_cursor') throw error
            }
          }
        }
        expect(accepted, `edits of ${cursor} that decode`).toEqual([])
      },
    )

    it.each(cursors.map((cursor) => ({ cursor, length: cursor.length })))(
      'every deletion of one character, and an added character at either end, of a $length-character cursor',
      ({ cursor }) => {
        const edits = [
          ...Array.from(cursor, (_, i) => cursor.slice(0, i) + cursor.slice(i + 1)),
          ...Array.from(ALPHABET, (c) => c + cursor),
          ...Array.from(ALPHABET, (c) => cursor + c),
          `${cursor}=`,
          `${cursor}==`,
        ]
        for (const edited of edits) expectInvalidCursor(rejection(edited))
      },
    )
  })

  describe('rejects garbage as invalid_cursor, never anything else', () => {
    const valid = JSON.parse(
      Buffer.from(encodeCursor(POSITION, BINDING, SECRET), 'base64url').toString('utf8'),
    ) as unknown[]
    const withPart = (index: number, value: unknown) =>
      base64Url(JSON.stringify(valid.map((part, i) => (i === index ? value : part))))

    it.each([
      { why: 'the empty string', cursor: '' },
      { why: 'abc', cursor: 'abc' },
      { why: 'a single character', cursor: 'a' },
      { why: 'base64 of []', cursor: base64Url('[]') },
      { why: 'base64 of {}', cursor: base64Url('{}') },
      { why: 'base64 of null', cursor: base64Url('null') },
      { why: 'base64 of a number', cursor: base64Url('1') },
      { why: 'base64 of a string', cursor: base64Url('"cursor"') },
      { why: 'base64 of not JSON', cursor: base64Url('not json at all') },
      { why: 'base64 of an array of wrong types', cursor: base64Url('["1", "t", 2, 3, 4, 5, 6]') },
      { why: 'base64 of an array of seven nulls', cursor: base64Url(JSON.stringify(Array(7).fill(null))) },
      { why: 'base64 of an array of seven objects', cursor: base64Url(JSON.stringify(Array(7).fill({}))) },
      { why: 'base64 of nested arrays', cursor: base64Url(JSON.stringify(Array(7).fill([]))) },
      { why: 'a cursor of version 2', cursor: withPart(0, 2) },
      { why: 'a cursor whose version is a string', cursor: withPart(0, '1') },
      { why: 'a fractional instant', cursor: withPart(1, 1.5) },
      { why: 'an instant past the safe integers', cursor: withPart(1, 2 ** 60) },
      { why: 'an instant as a string', cursor: withPart(1, String(POSITION.t)) },
      { why: 'an id as a number', cursor: withPart(2, 42) },
      { why: 'a checksum as a number', cursor: withPart(6, 42) },
      { why: 'a checksum that does not fit', cursor: withPart(6, 'zzzzzz') },
      { why: 'an edited id with the old checksum', cursor: withPart(2, '00000000-0000-4000-8000-000000000000') },
      { why: 'one part too many', cursor: base64Url(JSON.stringify([...valid, 'extra'])) },
      { why: 'one part too few', cursor: base64Url(JSON.stringify(valid.slice(0, 6))) },
      { why: 'a __proto__ object', cursor: base64Url('{"__proto__":{"length":7},"0":1}') },
      { why: 'standard base64 with + and /', cursor: Buffer.from('[1,2,"??>>??"]').toString('base64') },
      { why: 'padded base64', cursor: `${base64Url('[]')}=` },
      { why: 'a percent-encoded cursor', cursor: encodeURIComponent(`${base64Url('[]')}==`) },
      { why: 'spaces', cursor: 'abc def' },
      { why: 'a newline', cursor: 'abcd\n' },
      { why: 'unicode', cursor: 'ÿþ€😀' },
      { why: 'a NUL', cursor: 'abc\u0000' },
      { why: '5,000 characters', cursor: 'A'.repeat(5_000) },
      {
        why: '5,000 characters of a cursor repeated',
        cursor: encodeCursor(POSITION, BINDING, SECRET).repeat(50).slice(0, 5_000),
      },
      {
        why: 'base64 of 5,000 characters of JSON',
        cursor: base64Url(JSON.stringify([1, 1, 'x'.repeat(5_000), 'calls', 'a', 'b', 'c'])),
      },
      { why: 'invalid UTF-8 bytes', cursor: Buffer.from([0xff, 0xfe, 0x5b, 0x31, 0x5d]).toString('base64url') },
    ])('$why', ({ cursor }) => {
      expectInvalidCursor(rejection(cursor), /malformed/)
    })

    it('500 random strings of the url-safe alphabet, of every length', () => {
      const next = random(5)
      for (let i = 0; i < 500; i++) {
        const length = 1 + Math.floor(next() * 300)
        const cursor = Array.from({ length }, () => ALPHABET[Math.floor(next() * 64)]).join('')
        expectInvalidCursor(rejection(cursor))
      }
    })
  })
})
