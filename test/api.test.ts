import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ErrorEnvelope, ListEnvelope, Meta, RecordEnvelope, Organization } from '../src/index.js'
import { transports, type RequestOptions, type Transport } from './support/transports.js'

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000'

describe.each(transports)('the API (%o)', (connect) => {
  let api: Transport
  const ids = { call: '', contact: '', org2Call: '', org2Contact: '' }

  beforeAll(async () => {
    api = await connect()
    ids.call = (await api.request('/v1/calls?limit=1')).body.data[0].id
    ids.contact = (await api.request('/v1/contacts?limit=1')).body.data[0].id
    ids.org2Call = (await api.request('/v1/calls?limit=1', { key: 'sk_sandbox_org2' })).body.data[0].id
    ids.org2Contact = (await api.request('/v1/contacts?limit=1', { key: 'sk_sandbox_org2' })).body.data[0].id
  })
  afterAll(() => api.close())

  describe('keys x endpoints', () => {
    const KEYS = {
      sk_sandbox_all: ['calls:read', 'contacts:read', 'contacts:write', 'leads:read', 'appointments:read'],
      sk_sandbox_readonly: ['calls:read', 'contacts:read', 'leads:read', 'appointments:read'],
      sk_sandbox_calls: ['calls:read'],
      sk_sandbox_org2: ['calls:read', 'contacts:read', 'contacts:write', 'leads:read', 'appointments:read'],
      sk_unknown_key: null,
    } as const
    let phone = 14155550100
    const endpoints = [
      { name: 'GET /v1/calls', scope: 'calls:read', request: () => ['/v1/calls?limit=2'] },
      { name: 'GET /v1/calls/:id', scope: 'calls:read', org1Record: true, request: () => [`/v1/calls/${ids.call}`] },
      { name: 'GET /v1/contacts', scope: 'contacts:read', request: () => ['/v1/contacts?limit=2'] },
      {
        name: 'GET /v1/contacts/:id',
        scope: 'contacts:read',
        org1Record: true,
        request: () => [`/v1/contacts/${ids.contact}`],
      },
      {
        name: 'POST /v1/contacts',
        scope: 'contacts:write',
        created: true,
        request: () => [
          '/v1/contacts',
          {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ phone: `+${phone++}` }),
          },
        ],
      },
      { name: 'GET /v1/leads', scope: 'leads:read', request: () => ['/v1/leads?limit=2'] },
      { name: 'GET /v1/appointments', scope: 'appointments:read', request: () => ['/v1/appointments?limit=2'] },
      { name: 'GET /v1/me', scope: null, request: () => ['/v1/me'] },
    ] as const
    const rows = Object.entries(KEYS).flatMap(([key, scopes]) =>
      endpoints.map((endpoint) => {
        const expected =
          scopes === null
            ? 401
            : endpoint.scope !== null && !(scopes as readonly string[]).includes(endpoint.scope)
              ? 403
              : 'org1Record' in endpoint && key === 'sk_sandbox_org2'
                ? 404
                : 'created' in endpoint
                  ? 201
                  : 200
        return { key, endpoint, expected }
      }),
    )

    it.each(rows)('$key on $endpoint.name answers $expected', async ({ key, endpoint, expected }) => {
      const [path, options] = endpoint.request() as [string, RequestOptions?]
      const { status, body } = await api.request(path, { ...options, key })
      expect(status, JSON.stringify(body)).toBe(expected)
      if (expected === 403) expect(body.error.message).toContain(endpoint.scope)
    })
  })

  describe('Authorization header', () => {
    it.each([
      [undefined, 401],
      ['', 401],
      ['Bearer', 401],
      ['Bearer ', 401],
      ['Basic c2tfc2FuZGJveF9hbGw6', 401],
      ['Token sk_sandbox_all', 401],
      ['sk_sandbox_all', 401],
      ['Bearer sk_sandbox_all extra', 401],
      ['Bearer sk_sandbox_nope', 401],
      ['Bearer sk_sandbox_all', 200],
      ['bearer sk_sandbox_all', 200],
      ['Bearer  sk_sandbox_all', 200],
    ] as const)('%o answers %i', async (authorization, expected) => {
      const headers: Record<string, string> = authorization === undefined ? {} : { Authorization: authorization }
      const { status, headers: answerHeaders, body } = await api.request('/v1/me', { key: null, headers })
      expect(status).toBe(expected)
      if (expected === 401) {
        expect(answerHeaders.get('www-authenticate')).toBe('Bearer')
        expect(body.error).toMatchObject({ type: 'authentication_error', code: 'unauthorized' })
      }
    })
  })

  describe('envelopes', () => {
    it('wraps a list in data, has_more, next_cursor and meta, with the request id also in X-Request-Id', async () => {
      const { status, headers, body } = await api.request('/v1/calls?limit=3')
      expect(status).toBe(200)
      expect(headers.get('content-type')).toMatch(/^application\/json/)
      expect(Object.keys(body)).toEqual(['data', 'has_more', 'next_cursor', 'meta'])
      expect(
        ListEnvelope(Meta.partial())
          .strict()
          .safeParse({ ...body, data: [] }).success,
      ).toBe(true)
      expect(body.meta.request_id).toMatch(/^req_[A-Za-z0-9_-]{24,}$/)
      expect(headers.get('x-request-id')).toBe(body.meta.request_id)
      expect(body.meta.timestamp).toBe('2026-11-20T12:00:00.000Z')
    })

    it('wraps one record in data and meta', async () => {
      for (const path of [`/v1/calls/${ids.call}`, `/v1/contacts/${ids.contact}`, '/v1/me']) {
        const { body } = await api.request(path)
        expect(Object.keys(body)).toEqual(['data', 'meta'])
      }
      const me = await api.request('/v1/me', { key: 'sk_sandbox_readonly' })
      expect(RecordEnvelope(Organization.strict()).parse(me.body).data).toEqual({
        organization_id: '32c2f8c7-f989-4916-b7db-478a1fa9c50b',
        organization_name: 'Harbor Dental Care',
        plan: 'growth',
        scopes: ['calls:read', 'contacts:read', 'leads:read', 'appointments:read'],
      })
    })

    it('gives every request its own id', async () => {
      const a = await api.request('/v1/me')
      const b = await api.request('/v1/nope')
      expect(a.body.meta.request_id).not.toBe(b.body.meta.request_id)
    })
  })

  describe('errors and the order of checks', () => {
    const cases: Array<[string, () => [string, RequestOptions], number, string, string?]> = [
      ['an unknown path, even without a key', () => ['/v1/nope', { key: null }], 404, 'not_found'],
      ['an unknown path below a resource', () => [`/v1/calls/${ids.call}/recording`, {}], 404, 'not_found'],
      ['a single lead, which the API does not offer', () => [`/v1/leads/${UNKNOWN_ID}`, {}], 404, 'not_found'],
      [
        'a method the path does not offer, before auth',
        () => ['/v1/calls', { method: 'DELETE', key: null }],
        405,
        'method_not_allowed',
      ],
      ['PUT on contacts', () => ['/v1/contacts', { method: 'PUT' }], 405, 'method_not_allowed'],
      ['POST on /v1/me', () => ['/v1/me', { method: 'POST' }], 405, 'method_not_allowed'],
      ['no key before a missing scope', () => ['/v1/leads?limit=0', { key: null }], 401, 'unauthorized'],
      [
        'a missing scope before a bad parameter',
        () => ['/v1/leads?limit=0', { key: 'sk_sandbox_calls' }],
        403,
        'insufficient_scope',
      ],
      [
        'a missing scope before a bad body',
        () => ['/v1/contacts', { method: 'POST', key: 'sk_sandbox_readonly', body: 'nope' }],
        403,
        'insufficient_scope',
      ],
      ['a malformed id before the record', () => ['/v1/calls/not-a-uuid', {}], 400, 'invalid_parameter', 'call_id'],
      ['a malformed contact id', () => ['/v1/contacts/123', {}], 400, 'invalid_parameter', 'contact_id'],
      [
        'an unknown parameter before the record',
        () => [`/v1/calls/${UNKNOWN_ID}?expand=messages`, {}],
        400,
        'unknown_parameter',
        'expand',
      ],
      ['an unknown call', () => [`/v1/calls/${UNKNOWN_ID}`, {}], 404, 'not_found'],
      ['an unknown contact', () => [`/v1/contacts/${UNKNOWN_ID}`, {}], 404, 'not_found'],
      ["another organization's call", () => [`/v1/calls/${ids.org2Call}`, {}], 404, 'not_found'],
      ["another organization's contact", () => [`/v1/contacts/${ids.org2Contact}`, {}], 404, 'not_found'],
      [
        'a query parameter before the body',
        () => ['/v1/contacts?dry_run=1', { method: 'POST', body: 'nope' }],
        400,
        'unknown_parameter',
        'dry_run',
      ],
    ]

    it.each(cases)('%s', async (_name, request, status, code, param) => {
      const [path, options] = request()
      const answer = await api.request(path, options)
      expect(answer.status, JSON.stringify(answer.body)).toBe(status)
      expect(ErrorEnvelope.strict().parse(answer.body).error.code).toBe(code)
      if (param) expect(answer.body.error.param).toBe(param)
    })

    it('lists the allowed methods in Allow', async () => {
      expect((await api.request('/v1/contacts', { method: 'PATCH' })).headers.get('allow')).toBe('GET, POST')
      expect((await api.request(`/v1/calls/${ids.call}`, { method: 'DELETE' })).headers.get('allow')).toBe('GET')
    })

    it('reads an upper-case id as the same id', async () => {
      const { status, body } = await api.request(`/v1/calls/${ids.call.toUpperCase()}`)
      expect(status).toBe(200)
      expect(body.data.id).toBe(ids.call)
    })
  })

  describe('query parameters', () => {
    const bad: Array<[string, string]> = [
      ['/v1/calls?limit=0', 'limit'],
      ['/v1/calls?limit=-1', 'limit'],
      ['/v1/calls?limit=1.5', 'limit'],
      ['/v1/calls?limit=101', 'limit'],
      ['/v1/calls?limit=', 'limit'],
      ['/v1/calls?limit=ten', 'limit'],
      ['/v1/calls?limit=1e2', 'limit'],
      ['/v1/calls?limit=%205', 'limit'],
      ['/v1/calls?limit=1&limit=2', 'limit'],
      ['/v1/calls?since=2026-02-30', 'since'],
      ['/v1/calls?since=2026-13-01', 'since'],
      ['/v1/calls?since=2026-11-20T24:00:00Z', 'since'],
      ['/v1/calls?since=yesterday', 'since'],
      ['/v1/calls?since=', 'since'],
      ['/v1/calls?since=1763640000', 'since'],
      ['/v1/calls?status=Completed', 'status'],
      ['/v1/calls?status=done', 'status'],
      ['/v1/calls?status=', 'status'],
      ['/v1/calls?status=new', 'status'],
      ['/v1/calls?phone=4155550123', 'phone'],
      ['/v1/calls?phone=%2B0123', 'phone'],
      ['/v1/calls?phone=', 'phone'],
      ['/v1/contacts?phone=(415)%20555-0123', 'phone'],
      ['/v1/leads?status=qualifed', 'status'],
      ['/v1/leads?urgency=urgent', 'urgency'],
      ['/v1/appointments?status=canceled', 'status'],
      ['/v1/appointments?status=no-show', 'status'],
    ]
    it.each(bad)('%s is 400 invalid_parameter naming %s', async (path, param) => {
      const { status, body } = await api.request(path)
      expect(status, JSON.stringify(body)).toBe(400)
      expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_parameter', param })
    })

    const unknown: Array<[string, string]> = [
      ['/v1/calls?foo=1', 'foo'],
      ['/v1/calls?Limit=5', 'Limit'],
      ['/v1/leads?phone=%2B14155550123', 'phone'],
      ['/v1/appointments?urgency=high', 'urgency'],
      ['/v1/contacts?status=new', 'status'],
      ['/v1/me?verbose=true', 'verbose'],
    ]
    it.each(unknown)('%s is 400 unknown_parameter naming %s', async (path, param) => {
      const { status, body } = await api.request(path)
      expect(status).toBe(400)
      expect(body.error).toMatchObject({ code: 'unknown_parameter', param })
    })

    it('names the allowed values of status and urgency', async () => {
      expect((await api.request('/v1/calls?status=x')).body.error.message).toContain(
        'completed, failed, blocked, in-progress, forwarding',
      )
      expect((await api.request('/v1/leads?status=x')).body.error.message).toContain(
        'new, contacted, qualified, converted, lost',
      )
      expect((await api.request('/v1/leads?urgency=x')).body.error.message).toContain('low, medium, high')
      expect((await api.request('/v1/appointments?status=x')).body.error.message).toContain(
        'booked, confirmed, cancelled, completed, no_show',
      )
    })

    it('says to send + as %2B when a phone arrives with a space', async () => {
      const { body } = await api.request('/v1/calls?phone=+14155550123')
      expect(body.error.message).toContain('%2B')
      const { body: contacts } = await api.request('/v1/contacts?phone=+14155550123')
      expect(contacts.error.message).toContain('%2B')
    })

    it.each([
      '/v1/calls?limit=1',
      '/v1/calls?limit=100',
      '/v1/calls?limit=050',
      '/v1/calls?since=2026-11-01',
      '/v1/calls?since=2026-11-01T09:00',
      '/v1/calls?since=2026-11-01T09:00:00Z',
      '/v1/calls?since=2026-11-01T09:00:00.123%2B02:00',
      '/v1/calls?since=2026-11-01T09:00:00-0500',
      '/v1/calls?status=in-progress&phone=%2B14155550123',
      '/v1/leads?status=new&urgency=high',
      '/v1/appointments?status=no_show',
      '/v1/contacts?phone=%2B14155550123',
    ])('%s is 200', async (path) => {
      const { status, body } = await api.request(path)
      expect(status, JSON.stringify(body)).toBe(200)
    })

    it('answers at most 50 records without a limit, and at most limit with one', async () => {
      expect((await api.request('/v1/calls')).body.data).toHaveLength(50)
      expect((await api.request('/v1/calls?limit=100')).body.data).toHaveLength(100)
      expect((await api.request('/v1/calls?limit=7')).body.data).toHaveLength(7)
    })
  })
})

describe('one request table, two transports', () => {
  const table: Array<[string, RequestOptions?]> = [
    ['/v1/calls?limit=5'],
    ['/v1/calls?status=in-progress'],
    ['/v1/calls?limit=3&since=2026-11-19'],
    ['/v1/contacts?limit=4'],
    ['/v1/leads?urgency=high&limit=3'],
    ['/v1/appointments?status=booked&limit=3'],
    ['/v1/me', { key: 'sk_sandbox_org2' }],
    ['/v1/leads', { key: 'sk_sandbox_calls' }],
    ['/v1/calls?limit=0'],
    ['/v1/calls?cursor=bm90LWEtY3Vyc29y'],
    ['/v1/nope', { key: null }],
    ['/v1/calls', { method: 'DELETE' }],
    ['/v1/me', { key: 'sk_nope' }],
    [
      '/v1/contacts',
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"phone":"+15550001111","name":"Ana Ruiz"}',
      },
    ],
    [
      '/v1/contacts',
      { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"phone":"+15550001111"}' },
    ],
    ['/v1/contacts', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'hello' }],
    [
      '/v1/contacts',
      { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"phone":1,"nickname":"x"}' },
    ],
  ]

  it('answers every row the same way in process and over HTTP', async () => {
    const answers: Record<string, unknown[]> = {}
    for (const connect of transports) {
      const api = await connect()
      const rows: unknown[] = []
      for (const [path, options] of table) {
        const answer = await api.request(path, options)
        // The request id is new for every request; everything else must match.
        const { meta, ...body } = answer.body
        rows.push({
          status: answer.status,
          contentType: answer.headers.get('content-type'),
          location: answer.headers.get('location'),
          allow: answer.headers.get('allow'),
          body,
          timestamp: meta?.timestamp,
        })
      }
      answers[api.name] = rows
      await api.close()
    }
    expect(answers.http).toEqual(answers['in-process'])
  })
})
