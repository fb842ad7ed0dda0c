import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { transports, walk, type Transport } from './support/transports.js'

/** Newest first, ties by id descending. */
function inListOrder(records: Array<{ created_at: string; id: string }>): boolean {
  return records.every((record, i) => {
    const previous = records[i - 1]
    return (
      !previous ||
      previous.created_at > record.created_at ||
      (previous.created_at === record.created_at && previous.id > record.id)
    )
  })
}

describe.each(transports)('lists (%o)', (connect) => {
  let api: Transport
  beforeAll(async () => {
    api = await connect()
  })
  afterAll(() => api.close())

  const lists = [
    ['/v1/calls', 'sk_sandbox_all'],
    ['/v1/calls?status=completed', 'sk_sandbox_all'],
    ['/v1/calls?status=in-progress', 'sk_sandbox_all'],
    ['/v1/calls?since=2026-11-01T00:00:00Z', 'sk_sandbox_all'],
    ['/v1/contacts', 'sk_sandbox_all'],
    ['/v1/leads', 'sk_sandbox_all'],
    ['/v1/leads?status=new&urgency=high', 'sk_sandbox_all'],
    ['/v1/appointments', 'sk_sandbox_all'],
    ['/v1/appointments?status=completed&since=2026-10-01', 'sk_sandbox_all'],
    ['/v1/calls', 'sk_sandbox_org2'],
    ['/v1/contacts', 'sk_sandbox_org2'],
  ] as const

  it.each(lists)(
    'walks %s (%s) page by page: every record exactly once, in order, whatever the limit',
    async (path, key) => {
      const everything = (await api.request(`${path}${path.includes('?') ? '&' : '?'}limit=100`, { key })).body
      const expected = everything.has_more ? await walk(api, path, key) : everything.data
      expect(inListOrder(expected)).toBe(true)
      for (const limit of [1, 7, 50, 100]) {
        const walked = await walk(api, `${path}${path.includes('?') ? '&' : '?'}limit=${limit}`, key)
        expect(walked.map((record) => record.id)).toEqual(expected.map((record: { id: string }) => record.id))
      }
    },
  )

  it('matches the filters on every record it lists', async () => {
    const failed = await walk(api, '/v1/calls?status=failed')
    expect(failed.length).toBeGreaterThan(0)
    expect(failed.every((call) => call.status === 'failed')).toBe(true)
    const medium = await walk(api, '/v1/leads?urgency=medium')
    expect(medium.length).toBeGreaterThan(0)
    expect(medium.every((lead) => lead.urgency === 'medium')).toBe(true)
    const since = '2026-11-13T08:30:00.000Z'
    const recent = await walk(api, `/v1/calls?since=${since}`)
    expect(recent.length).toBeGreaterThan(0)
    expect(recent.every((call) => call.created_at > since)).toBe(true)
    const all = await walk(api, '/v1/calls')
    expect(recent).toHaveLength(all.filter((call) => call.created_at > since).length)
  })

  it('keeps records whose created_at is strictly after since', async () => {
    const [newest, second] = (await api.request('/v1/calls?limit=2')).body.data
    const atNewest = await walk(api, `/v1/calls?since=${encodeURIComponent(newest.created_at)}`)
    expect(atNewest).toEqual([])
    const atSecond = await walk(api, `/v1/calls?since=${encodeURIComponent(second.created_at)}`)
    expect(atSecond.map((call) => call.id)).toEqual([newest.id])
  })

  it('reads since without an offset as UTC, and honours an offset', async () => {
    const utc = await walk(api, '/v1/calls?since=2026-11-19T12:00:00Z')
    expect(await walk(api, '/v1/calls?since=2026-11-19T12:00:00')).toEqual(utc)
    expect(await walk(api, '/v1/calls?since=2026-11-19T07:00:00-05:00')).toEqual(utc)
    const day = await walk(api, '/v1/calls?since=2026-11-19')
    expect(await walk(api, '/v1/calls?since=2026-11-19T00:00:00Z')).toEqual(day)
  })

  it('ends with has_more false and next_cursor null, and filters that match nothing give an empty last page', async () => {
    const last = (await api.request('/v1/calls?status=in-progress&limit=100')).body
    expect(last).toMatchObject({ has_more: false, next_cursor: null })
    const none = (await api.request('/v1/calls?phone=%2B19999999999')).body
    expect(none).toMatchObject({ data: [], has_more: false, next_cursor: null })
  })

  it('returns each contact once when contacts are created between pages', async () => {
    const before = await walk(api, '/v1/contacts')
    const seen: string[] = []
    let path = '/v1/contacts?limit=25'
    for (let page = 0; ; page++) {
      const { body } = await api.request(path)
      seen.push(...body.data.map((contact: { id: string }) => contact.id))
      const created = await api.request('/v1/contacts', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ phone: `+1617555${String(1000 + page).padStart(4, '0')}`, name: `Walker ${page}` }),
      })
      expect(created.status).toBe(201)
      if (!body.has_more) break
      path = `/v1/contacts?limit=25&cursor=${body.next_cursor}`
    }
    expect(seen).toEqual(before.map((contact) => contact.id))
    expect(new Set(seen).size).toBe(seen.length)
  })

  describe('cursors', () => {
    async function cursorOf(path: string, key = 'sk_sandbox_all'): Promise<string> {
      const { body } = await api.request(path, { key })
      expect(body.has_more).toBe(true)
      return body.next_cursor
    }

    it('are opaque and url-safe', async () => {
      const cursor = await cursorOf('/v1/calls?limit=2')
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/)
    })

    it('may be used with another limit', async () => {
      const cursor = await cursorOf('/v1/calls?limit=2')
      const { status, body } = await api.request(`/v1/calls?limit=5&cursor=${cursor}`)
      expect(status).toBe(200)
      const expected = (await api.request('/v1/calls?limit=7')).body.data.slice(2)
      expect(body.data).toEqual(expected)
    })

    it.each([
      ['another endpoint', '/v1/calls?limit=2', '/v1/contacts?cursor=', 'sk_sandbox_all'],
      ['another key of the same organization', '/v1/calls?limit=2', '/v1/calls?cursor=', 'sk_sandbox_readonly'],
      [
        'another filter value',
        '/v1/calls?limit=2&status=completed',
        '/v1/calls?status=failed&cursor=',
        'sk_sandbox_all',
      ],
      ['a filter left out', '/v1/calls?limit=2&status=completed', '/v1/calls?cursor=', 'sk_sandbox_all'],
      ['a filter added', '/v1/calls?limit=2', '/v1/calls?status=completed&cursor=', 'sk_sandbox_all'],
      ['another since', '/v1/calls?limit=2&since=2026-11-01', '/v1/calls?since=2026-11-02&cursor=', 'sk_sandbox_all'],
    ])('are refused with 400 invalid_cursor for %s', async (_name, issuedBy, usedOn, key) => {
      const cursor = await cursorOf(issuedBy)
      const { status, body } = await api.request(`${usedOn}${cursor}`, { key })
      expect(status).toBe(400)
      expect(body.error).toMatchObject({ code: 'invalid_cursor', param: 'cursor' })
    })

    it('accept the same filters written another way', async () => {
      const cursor = await cursorOf('/v1/calls?limit=2&since=2026-11-01')
      const { status } = await api.request(`/v1/calls?since=2026-11-01T00:00:00Z&cursor=${cursor}`)
      expect(status).toBe(200)
    })

    it.each(['', 'abc', 'not a cursor', 'W10', '%00', 'eyJ4IjoxfQ'])(
      'refuses the malformed cursor %o',
      async (cursor) => {
        const { status, body } = await api.request(`/v1/calls?cursor=${encodeURIComponent(cursor)}`)
        expect(status).toBe(400)
        expect(body.error.code).toBe('invalid_cursor')
      },
    )

    it('refuses a cursor with one character changed', async () => {
      const cursor = await cursorOf('/v1/calls?limit=2')
      for (let i = 0; i < cursor.length; i += 3) {
        const swapped = cursor.slice(0, i) + (cursor[i] === 'A' ? 'B' : 'A') + cursor.slice(i + 1)
        const { status, body } = await api.request(`/v1/calls?cursor=${swapped}`)
        expect(status, `position ${i}`).toBe(400)
        expect(body.error.code).toBe('invalid_cursor')
      }
    })
  })
})
