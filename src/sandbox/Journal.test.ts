import { describe, expect, it } from 'vitest'
import type { JournalEntry } from '../schemas/index.js'
import { Journal, KEPT_BODY_BYTES, keptBody } from './Journal.js'

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
    request: { headers: {}, body, body_truncated: false },
    response: { headers: {}, body: null, body_truncated: false },
  }
}

describe('Journal', () => {
  it('keeps the newest entries up to its size, newest first', () => {
    const journal = new Journal(3)
    for (let i = 1; i <= 5; i++) journal.record(entry(i))
    expect(journal.entries().map(({ request_id }) => request_id)).toEqual(['req_5', 'req_4', 'req_3'])
    expect(journal.size).toBe(3)
  })

  it('keeps no more than its bytes of bodies: the oldest go first, the newest always stays', () => {
    const journal = new Journal(1_000, 10_000)
    for (let i = 1; i <= 100; i++) {
      journal.record(entry(i, 3_000))
      expect(journal.bytes).toBeLessThanOrEqual(10_000)
    }
    expect(journal.entries().map(({ request_id }) => request_id)).toEqual(['req_100', 'req_99', 'req_98'])
    journal.record(entry(101, 50_000))
    expect(journal.entries().map(({ request_id }) => request_id)).toEqual(['req_101'])
    journal.clear()
    expect([journal.size, journal.bytes]).toEqual([0, 0])
  })
})

describe('keptBody', () => {
  const bytes = (text: string) => new TextEncoder().encode(text)

  it('keeps a body up to its bytes whole, and none for an empty one', () => {
    expect(keptBody(bytes('x'.repeat(KEPT_BODY_BYTES)))).toEqual({
      body: 'x'.repeat(KEPT_BODY_BYTES),
      body_truncated: false,
    })
    expect(keptBody(bytes(''))).toEqual({ body: null, body_truncated: false })
    expect(keptBody(null)).toEqual({ body: null, body_truncated: false })
  })

  it('cuts a longer one at its bytes and says so', () => {
    expect(keptBody(bytes('x'.repeat(KEPT_BODY_BYTES + 1)))).toEqual({
      body: 'x'.repeat(KEPT_BODY_BYTES),
      body_truncated: true,
    })
    expect(keptBody(bytes('{"notes":"long"}'), 9)).toEqual({ body: '{"notes":', body_truncated: true })
  })
})
