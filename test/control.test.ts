import { getResponse } from 'msw'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startServer } from '../src/server/startServer.js'
import { dataOf, postJson, using } from './support/control.js'
import { inProcess, NOW, ORG_1, ORG_2, transports, walk, type Transport } from './support/transports.js'

/*
 * The control plane (`/_sandbox/`, contract section 8) and its in-process
 * equivalents: reset, health, simulated calls, the clock, the request
 * journal, the usage report, scenarios and the admin token. Every table
 * runs in process (MSW) and over HTTP (the standalone server).
 */

const UNKNOWN_ORG = '00000000-0000-4000-8000-000000000000'
const MINUTE = 60_000
const REQUEST_ID = /^req_[A-Za-z0-9_-]{24,}$/
const JOURNAL_FIELDS = [
  'duration_ms',
  'key',
  'method',
  'path',
  'query',
  'request',
  'request_id',
  'response',
  'status',
  'timestamp',
]
const ENDPOINTS = [
  'GET /v1/calls',
  'GET /v1/calls/:call_id',
  'GET /v1/contacts',
  'GET /v1/contacts/:contact_id',
  'POST /v1/contacts',
  'GET /v1/leads',
  'GET /v1/appointments',
  'GET /v1/me',
]

const named = transports.map((make) => [make.name === 'inProcess' ? 'in process' : 'over HTTP', make] as const)

describe.each(named)('the control plane, %s', (_name, make) => {
  let api: Transport
  beforeAll(async () => {
    api = await make()
  })
  afterAll(() => api.close())
  beforeEach(() => api.sandbox.reset({ scenario: 'default' }))

  const health = async () => dataOf(await api.request('/_sandbox/health', { key: null }))
  const simulate = async (body?: unknown) => dataOf(await postJson(api, '/_sandbox/calls', body), 201)
  const get = async (path: string, key = 'sk_sandbox_all') => dataOf(await api.request(path, { key }))
  const createContact = (body: unknown) => postJson(api, '/v1/contacts', body, { key: 'sk_sandbox_all' })
  // A call of the API has no organization_id: the stored record says whose it is.
  const organizationOf = (call: { id: string }) => api.sandbox.db.get('calls', call.id)?.organization_id

  describe('GET /_sandbox/health', () => {
    it('answers without an API key: the seed, scenario, clock, record counts, journal, live mode and settings', async () => {
      const answer = await api.request('/_sandbox/health', { key: null })
      expect(answer.status).toBe(200)
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/)
      expect(answer.body.meta.request_id).toMatch(REQUEST_ID)
      expect(answer.headers.get('x-request-id')).toBe(answer.body.meta.request_id)
      expect(answer.body.meta.timestamp).toBe(NOW)
      expect(answer.body.data).toEqual({
        status: 'ok',
        seed: 1,
        scenario: 'default',
        clock: { now: NOW, mode: 'fixed' },
        // Seed 1's day: a change to the stories or to the draws moves these, and every id with them.
        records: { calls: 340, contacts: 243, leads: 83, appointments: 53 },
        journal: { entries: 0, capacity: 1_000 },
        live: { interval_ms: null },
        settings: { latency: null, error_rate: 0, rate_limit: null, changed: [] },
        // No --data, no --store: its writes are kept nowhere but in this process.
        store: { kind: 'memory', state: 'ok', error: null },
      })
    })

    it('answers a method it does not take with 405 and Allow, an unknown control path with 404', async () => {
      const wrongMethod = await api.request('/_sandbox/health', { method: 'DELETE', key: null })
      expect(wrongMethod.status).toBe(405)
      expect(wrongMethod.body.error.code).toBe('method_not_allowed')
      expect(wrongMethod.headers.get('allow')).toBe('GET')
      const unknown = await api.request('/_sandbox/nothing-here', { key: null })
      expect(unknown.status).toBe(404)
      expect(unknown.body.error.code).toBe('not_found')
    })
  })

  describe('POST /_sandbox/reset', () => {
    it('puts back the records, the clock, the journal and the usage report', async () => {
      const seeded = await health()
      const firstPage = await get('/v1/calls?limit=20')

      const contact = dataOf(await createContact({ phone: '+14155550123', name: 'Dana Whitfield' }), 201)
      const call = await simulate({ status: 'in-progress' })
      await postJson(api, '/_sandbox/clock', { advance_seconds: 3_600 })
      await api.request('/v1/me')
      expect((await health()).records).not.toEqual(seeded.records)
      expect(await get('/_sandbox/usage')).not.toEqual([])

      const reset = await postJson(api, '/_sandbox/reset')
      expect(reset.status).toBe(200)
      expect(reset.body.data).toEqual(seeded)
      expect(await health()).toEqual(seeded)
      expect(dataOf(await api.request('/_sandbox/clock', { key: null }))).toEqual({ now: NOW, mode: 'fixed' })
      expect((await api.request(`/v1/contacts/${contact.id}`)).status).toBe(404)
      expect((await api.request(`/v1/calls/${call.id}`)).status).toBe(404)
      expect(await get('/v1/calls?limit=20')).toEqual(firstPage)
      // The journal holds the requests since the reset only; the usage report likewise.
      expect((await get('/_sandbox/requests')).map(({ path }: { path: string }) => path)).toEqual([
        '/v1/calls',
        `/v1/calls/${call.id}`,
        `/v1/contacts/${contact.id}`,
      ])
      const [usage] = await get('/_sandbox/usage')
      expect(usage.requests).toBe(3)
    })

    it('takes an empty body, {} or a JSON body with Content-Type, and is the same as sandbox.reset()', async () => {
      const seeded = await health()
      for (const send of [
        () => postJson(api, '/_sandbox/reset'),
        () => postJson(api, '/_sandbox/reset', {}),
        () => postJson(api, '/_sandbox/reset', { scenario: 'default' }),
      ]) {
        await simulate()
        const answer = await send()
        expect(answer.status).toBe(200)
        expect(answer.body.data).toEqual(seeded)
      }
      await simulate()
      await api.sandbox.reset()
      expect(await health()).toEqual(seeded)
    })

    it('makes the ids made after it repeat those made after the last one', async () => {
      const write = async () => {
        const call = await simulate()
        const contact = dataOf(await createContact({ phone: '+14155550123' }), 201)
        const lead = await api.sandbox.addLead()
        return [call.id, call.contact_id, contact.id, lead.lead.id, lead.call.id]
      }
      const first = await write()
      await postJson(api, '/_sandbox/reset')
      const second = await write()
      await api.sandbox.reset()
      const third = await write()
      expect(second).toEqual(first)
      expect(third).toEqual(first)
      expect(new Set(first).size).toBe(first.length)
    })

    it('refuses an unknown scenario or field with 422 and changes nothing', async () => {
      await simulate()
      const before = await health()
      const unknownScenario = await postJson(api, '/_sandbox/reset', { scenario: 'weekend' })
      expect(unknownScenario.status).toBe(422)
      expect(unknownScenario.body.error.code).toBe('validation_failed')
      expect(unknownScenario.body.error.details).toEqual([
        expect.objectContaining({ field: 'scenario', code: 'invalid_choice' }),
      ])
      const unknownField = await postJson(api, '/_sandbox/reset', { scenario: 'empty', seed: 2 })
      expect(unknownField.status).toBe(422)
      expect(unknownField.body.error.details).toEqual([
        expect.objectContaining({ field: 'seed', code: 'unknown_field' }),
      ])
      expect(await health()).toEqual(before)
    })
  })

  describe('POST /_sandbox/calls', () => {
    it('{} is a completed call of a new caller of org 1: 201, Location, the call with its messages, the contact made', async () => {
      const contactsBefore = (await health()).records.contacts
      const answer = await postJson(api, '/_sandbox/calls', {})
      expect(answer.status).toBe(201)
      const call = answer.body.data
      expect(answer.headers.get('location')).toBe(`/v1/calls/${call.id}`)
      expect(answer.body.meta.request_id).toMatch(REQUEST_ID)
      expect(call.status).toBe('completed')
      expect(organizationOf(call)).toBe(ORG_1)
      expect(call.ended_at).not.toBeNull()
      expect(Date.parse(call.ended_at)).toBeLessThanOrEqual(Date.parse(NOW))
      expect(call.duration_seconds).toBe((Date.parse(call.ended_at) - Date.parse(call.started_at)) / 1_000)
      expect(call.messages.length).toBeGreaterThan(1)
      expect(call.transcript).toBe(
        call.messages
          .map(({ role, content }: any) => `${role === 'assistant' ? 'Assistant' : 'Caller'}: ${content}`)
          .join('\n'),
      )
      // What the API shows at the Location is that same call.
      expect(await get(answer.headers.get('location')!)).toEqual(call)

      const contact = await get(`/v1/contacts/${call.contact_id}`)
      expect(contact).toMatchObject({
        phone: call.caller_phone,
        source: 'inbound_call',
        total_calls: 1,
        last_call_at: call.started_at,
      })
      expect((await health()).records.contacts).toBe(contactsBefore + 1)
    })

    it('takes no body at all as {}', async () => {
      const answer = await postJson(api, '/_sandbox/calls')
      expect(answer.status).toBe(201)
      expect(answer.body.data.status).toBe('completed')
      expect(organizationOf(answer.body.data)).toBe(ORG_1)
    })

    it.each([
      ['completed', null],
      ['failed', null],
      ['blocked', null],
      ['in-progress', null],
      ['forwarding', 'initiated'],
    ] as const)('steers organization, caller and status %s', async (status, transferStatus) => {
      const call = await simulate({ organization_id: ORG_2, caller_phone: '+13035550147', status })
      expect(call).toMatchObject({ caller_phone: '+13035550147', status })
      expect(organizationOf(call)).toBe(ORG_2)
      if (status !== 'completed') expect(call.transfer_status).toBe(transferStatus)
      if (status === 'in-progress' || status === 'forwarding') {
        expect(call.ended_at).toBeNull()
        expect(call.duration_seconds).toBe(Math.floor((Date.parse(NOW) - Date.parse(call.started_at)) / 1_000))
      } else {
        expect(call.duration_seconds).toBe((Date.parse(call.ended_at) - Date.parse(call.started_at)) / 1_000)
      }
      // Org 2's key sees it; org 1's does not.
      expect(await get(`/v1/calls/${call.id}`, 'sk_sandbox_org2')).toEqual(call)
      expect((await api.request(`/v1/calls/${call.id}`)).status).toBe(404)
      const contact = await get(`/v1/contacts/${call.contact_id}`, 'sk_sandbox_org2')
      expect(contact).toMatchObject({ phone: '+13035550147', total_calls: 1, last_call_at: call.started_at })
    })

    it('steers the reason: a completed call about whitening pricing makes a lead unless it was handed to staff', async () => {
      const call = await simulate({ reason: 'whitening_pricing' })
      const leads = await walk(api, `/v1/leads?since=${call.started_at}`)
      const lead = leads.find(({ call_log_id }) => call_log_id === call.id)
      if (call.transfer_status === null) {
        expect(lead).toMatchObject({
          caller_phone: call.caller_phone,
          contact_id: call.contact_id,
          call_summary: call.summary,
        })
      } else {
        expect(lead).toBeUndefined()
      }
      const booking = await simulate({ reason: 'book_cleaning' })
      const appointments = await walk(api, `/v1/appointments?since=${booking.started_at}`)
      const appointment = appointments.find(({ call_log_id }) => call_log_id === booking.id)
      if (booking.transfer_status === null)
        expect(appointment).toMatchObject({ caller_phone: booking.caller_phone, contact_id: booking.contact_id })
      else expect(appointment).toBeUndefined()
    })

    it("updates a known caller's contact, and makes no second one", async () => {
      const [known] = await get('/v1/contacts?limit=1')
      const contactsBefore = (await health()).records.contacts
      const call = await simulate({ caller_phone: known.phone })
      expect(call.contact_id).toBe(known.id)
      expect(call.caller_phone).toBe(known.phone)
      const contact = await get(`/v1/contacts/${known.id}`)
      expect(contact.total_calls).toBe(known.total_calls + 1)
      expect(contact.last_call_at).toBe(
        known.last_call_at !== null && known.last_call_at > call.started_at ? known.last_call_at : call.started_at,
      )
      expect((await health()).records.contacts).toBe(contactsBefore)
      const byPhone = await walk(api, `/v1/contacts?phone=${encodeURIComponent(known.phone)}`)
      expect(byPhone.map(({ id }) => id)).toEqual([known.id])
      const calls = await walk(api, `/v1/calls?phone=${encodeURIComponent(known.phone)}&limit=100`)
      expect(calls).toHaveLength(contact.total_calls)
      expect(contact.last_call_at).toBe(
        calls
          .map(({ started_at }) => started_at)
          .sort()
          .at(-1),
      )
    })

    it.each([
      ['an unknown organization', { organization_id: UNKNOWN_ORG }, [['organization_id', 'invalid_choice']]],
      ['an organization id that is no UUID', { organization_id: 'org-1' }, [['organization_id', 'invalid_format']]],
      ['a reason of another business type', { reason: 'burst_pipe' }, [['reason', 'invalid_choice']]],
      ['a reason of nobody', { reason: 'oil_change' }, [['reason', 'invalid_choice']]],
      ['a phone that is not E.164', { caller_phone: '617-555-0123' }, [['caller_phone', 'invalid_format']]],
      ['a phone that is a number', { caller_phone: 16175550123 }, [['caller_phone', 'invalid_type']]],
      ['a status the API does not have', { status: 'ringing' }, [['status', 'invalid_choice']]],
      ['an unknown field', { started_at: NOW }, [['started_at', 'unknown_field']]],
      [
        'every bad field at once',
        { caller_phone: '555', status: 'ringing', id: 'x', colour: 'blue' },
        [
          ['caller_phone', 'invalid_format'],
          ['status', 'invalid_choice'],
          ['id', 'unknown_field'],
          ['colour', 'unknown_field'],
        ],
      ],
      [
        'an unknown organization beside a bad phone',
        { organization_id: UNKNOWN_ORG, caller_phone: '555' },
        [
          ['organization_id', 'invalid_choice'],
          ['caller_phone', 'invalid_format'],
        ],
      ],
      [
        'an unknown reason beside a bad status',
        { reason: 'oil_change', status: 'ringing' },
        [
          ['reason', 'invalid_choice'],
          ['status', 'invalid_choice'],
        ],
      ],
    ])(
      'answers 422 validation_failed for %s, listing every bad field, and writes nothing',
      async (_case, body, fields) => {
        const before = await health()
        const answer = await postJson(api, '/_sandbox/calls', body)
        expect(answer.status).toBe(422)
        expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', code: 'validation_failed' })
        const details = answer.body.error.details as Array<{ field: string; code: string; message: string }>
        expect(details.map(({ field, code }) => [field, code]).sort()).toEqual([...fields].sort())
        for (const { message } of details) expect(message).toEqual(expect.any(String))
        expect(await health()).toEqual(before)
      },
    )

    it('answers 415 to a body that is not JSON, 400 invalid_json to JSON that is broken or no object', async () => {
      const before = await health()
      const notJson = await api.request('/_sandbox/calls', {
        method: 'POST',
        key: null,
        headers: { 'Content-Type': 'text/plain' },
        body: '{}',
      })
      expect(notJson.status).toBe(415)
      expect(notJson.body.error.code).toBe('unsupported_media_type')
      for (const body of ['{"status": ', '[]', 'null', '"completed"']) {
        const answer = await postJson(api, '/_sandbox/calls', body)
        expect(answer.status, body).toBe(400)
        expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_json' })
      }
      expect(await health()).toEqual(before)
    })

    it('is what sandbox.addCall() does', async () => {
      const overApi = await simulate({ organization_id: ORG_2, status: 'failed' })
      await api.sandbox.reset()
      const { call } = await api.sandbox.addCall({ organization_id: ORG_2, status: 'failed' })
      expect(call.id).toBe(overApi.id)
      expect(await get(`/v1/calls/${call.id}`, 'sk_sandbox_org2')).toEqual(overApi)
    })
  })

  describe('the clock, /_sandbox/clock', () => {
    it('reads the clock: fixed at the seed instant', async () => {
      const answer = await api.request('/_sandbox/clock', { key: null })
      expect(answer.status).toBe(200)
      expect(answer.body.data).toEqual({ now: NOW, mode: 'fixed' })
      expect(api.sandbox.clockState()).toEqual({ now: NOW, mode: 'fixed' })
    })

    it('sets the clock: meta.timestamp and new records follow', async () => {
      const set = await postJson(api, '/_sandbox/clock', { now: '2026-12-24T08:00:00Z' })
      expect(set.status).toBe(200)
      expect(set.body.data).toEqual({ now: '2026-12-24T08:00:00.000Z', mode: 'fixed' })
      expect(set.body.meta.timestamp).toBe('2026-12-24T08:00:00.000Z')
      expect(dataOf(await api.request('/_sandbox/clock', { key: null })).now).toBe('2026-12-24T08:00:00.000Z')
      expect((await api.request('/v1/me')).body.meta.timestamp).toBe('2026-12-24T08:00:00.000Z')

      const contact = dataOf(await createContact({ phone: '+14155550123' }), 201)
      expect(contact.created_at).toBe('2026-12-24T08:00:00.000Z')
      const call = await simulate()
      expect(Date.parse(call.started_at)).toBeGreaterThan(Date.parse('2026-12-24T07:30:00Z'))
      expect(Date.parse(call.ended_at)).toBeLessThanOrEqual(Date.parse('2026-12-24T08:00:00Z'))
      // Newest first: the two new records lead their lists.
      expect((await get('/v1/contacts?limit=2')).map(({ id }: { id: string }) => id)).toContain(contact.id)
      expect((await get('/v1/calls?limit=1'))[0].id).toBe(call.id)
      // An offset is read as the instant it names.
      expect(dataOf(await postJson(api, '/_sandbox/clock', { now: '2026-12-24T10:00:00+02:00' })).now).toBe(
        '2026-12-24T08:00:00.000Z',
      )
    })

    it('advances the clock, and back with a negative number', async () => {
      const on = await postJson(api, '/_sandbox/clock', { advance_seconds: 900 })
      expect(on.body.data.now).toBe('2026-11-20T12:15:00.000Z')
      expect((await api.request('/v1/me')).body.meta.timestamp).toBe('2026-11-20T12:15:00.000Z')
      const back = await postJson(api, '/_sandbox/clock', { advance_seconds: -3_600 })
      expect(back.body.data.now).toBe('2026-11-20T11:15:00.000Z')
      api.sandbox.clock.advance(30 * MINUTE)
      expect(dataOf(await api.request('/_sandbox/clock', { key: null })).now).toBe('2026-11-20T11:45:00.000Z')
      api.sandbox.clock.set(Date.parse('2027-01-01T00:00:00Z'))
      expect((await api.request('/v1/me')).body.meta.timestamp).toBe('2027-01-01T00:00:00.000Z')
    })

    it.each([
      ['nothing', {}, ['now']],
      ['both', { now: NOW, advance_seconds: 60 }, ['now']],
      ['a now that is no date-time', { now: 'tomorrow' }, ['now']],
      ['a date without a time', { now: '2026-12-24' }, ['now']],
      ['seconds as a string', { advance_seconds: '60' }, ['advance_seconds']],
      ['an unknown field', { advance_minutes: 5 }, ['advance_minutes', 'now']],
    ])('refuses %s with 422 naming the field, and leaves the clock', async (_case, body, fields) => {
      const answer = await postJson(api, '/_sandbox/clock', body)
      expect(answer.status).toBe(422)
      expect(answer.body.error.code).toBe('validation_failed')
      expect(answer.body.error.details.map(({ field }: { field: string }) => field).sort()).toEqual(fields)
      expect(api.sandbox.clock.iso()).toBe(NOW)
    })

    it('ends an in-progress call when the clock passes its end: completed, ended_at, duration, the whole conversation', async () => {
      const live = await simulate({ status: 'in-progress' })
      expect(live).toMatchObject({ status: 'in-progress', ended_at: null, transfer_status: null })
      expect(await get('/v1/calls?status=in-progress')).toContainEqual(expect.objectContaining({ id: live.id }))

      await postJson(api, '/_sandbox/clock', { advance_seconds: 15 * 60 })
      const ended = await get(`/v1/calls/${live.id}`)
      expect(ended).toMatchObject({
        id: live.id,
        status: 'completed',
        started_at: live.started_at,
        caller_phone: live.caller_phone,
        contact_id: live.contact_id,
      })
      expect(ended.transfer_status).toBeNull()
      expect(Date.parse(ended.ended_at)).toBeGreaterThan(Date.parse(NOW))
      expect(Date.parse(ended.ended_at)).toBeLessThanOrEqual(Date.parse(NOW) + 15 * MINUTE)
      expect(ended.duration_seconds).toBe((Date.parse(ended.ended_at) - Date.parse(ended.started_at)) / 1_000)
      expect(Number.isInteger(ended.duration_seconds)).toBe(true)
      // The conversation goes on from where it was: the live messages, then more.
      expect(ended.messages.length).toBeGreaterThan(live.messages.length)
      expect(ended.messages.slice(0, live.messages.length)).toEqual(live.messages)
      expect(ended.transcript.startsWith(`${live.transcript}\n`)).toBe(true)
      expect(ended.transcript.split('\n')).toHaveLength(ended.messages.length)
      const times = ended.messages.map(({ timestamp }: { timestamp: string }) => Date.parse(timestamp))
      expect(times).toEqual([...times].sort((a, b) => a - b))
      expect(times.at(-1)).toBeLessThan(Date.parse(ended.ended_at))
      expect(ended.summary).not.toBe(live.summary)
      // The list shows it ended too, and no longer among the live ones.
      expect(await get('/v1/calls?status=in-progress')).not.toContainEqual(expect.objectContaining({ id: live.id }))
      const { messages: _messages, ...listed } = ended
      expect(await get('/v1/calls?status=completed&limit=100')).toContainEqual(listed)
      // The contact's own figures still match its calls.
      const contact = await get(`/v1/contacts/${live.contact_id}`)
      expect(contact).toMatchObject({ total_calls: 1, last_call_at: live.started_at })
      expect(Date.parse(contact.updated_at)).toBeGreaterThanOrEqual(Date.parse(ended.ended_at))
    })

    it('ends a forwarding call as transferred (completed) or not (failed)', async () => {
      const outcomes = new Set<string>()
      for (let i = 0; i < 8; i++) {
        const forwarding = await simulate({ status: 'forwarding' })
        expect(forwarding.transfer_status).toBe('initiated')
        await postJson(api, '/_sandbox/clock', { advance_seconds: 15 * 60 })
        const ended = await get(`/v1/calls/${forwarding.id}`)
        expect(ended.status).toBe('completed')
        expect(['completed', 'failed']).toContain(ended.transfer_status)
        expect(ended.duration_seconds).toBe((Date.parse(ended.ended_at) - Date.parse(ended.started_at)) / 1_000)
        expect(ended.messages.slice(0, forwarding.messages.length)).toEqual(forwarding.messages)
        expect(ended.messages.length).toBeGreaterThan(forwarding.messages.length)
        outcomes.add(ended.transfer_status)
      }
      // Seed 1: both endings among eight calls (70/30).
      expect([...outcomes].sort()).toEqual(['completed', 'failed'])
    })

    it("lets a live call's lead and appointment appear when it ends, for a since poll to find", async () => {
      const asksPrices = await simulate({ status: 'in-progress', reason: 'whitening_pricing' })
      const books = await simulate({ status: 'in-progress', reason: 'book_cleaning' })
      const poll = async (kind: 'leads' | 'appointments') => walk(api, `/v1/${kind}?since=${encodeURIComponent(NOW)}`)
      const from = (records: any[], call: { id: string }) =>
        records.filter(({ call_log_id }) => call_log_id === call.id)

      expect(from(await poll('leads'), asksPrices)).toEqual([])
      expect(from(await poll('appointments'), books)).toEqual([])

      await postJson(api, '/_sandbox/clock', { advance_seconds: 15 * 60 })
      const leads = await poll('leads')
      const appointments = await poll('appointments')
      for (const record of [...leads, ...appointments])
        expect(Date.parse(record.created_at)).toBeGreaterThan(Date.parse(NOW))
      const [lead] = from(leads, asksPrices)
      const [appointment] = from(appointments, books)
      const pricesEnded = await get(`/v1/calls/${asksPrices.id}`)
      const bookingEnded = await get(`/v1/calls/${books.id}`)
      expect(lead).toMatchObject({
        caller_phone: asksPrices.caller_phone,
        contact_id: asksPrices.contact_id,
        call_summary: pricesEnded.summary,
      })
      expect(Date.parse(lead.created_at)).toBeGreaterThan(Date.parse(pricesEnded.ended_at))
      expect(appointment).toMatchObject({ caller_phone: books.caller_phone, contact_id: books.contact_id })
      expect(Date.parse(appointment.created_at)).toBeGreaterThan(Date.parse(bookingEnded.ended_at))
      expect(Date.parse(appointment.appointment_time_start)).toBeGreaterThan(Date.parse(appointment.created_at))
      // The next poll, since the newest it saw, finds nothing new.
      const newest = leads[0].created_at
      expect(await walk(api, `/v1/leads?since=${encodeURIComponent(newest)}`)).toEqual([])
      // The contact now has the email the lead carries.
      expect((await get(`/v1/contacts/${asksPrices.contact_id}`)).email).toBe(lead.caller_email)
    })

    it('does the same from the in-process API: clock.advance, then settle()', async () => {
      const { call } = await api.sandbox.addCall({ status: 'in-progress' })
      api.sandbox.clock.advance(15 * MINUTE)
      await api.sandbox.settle()
      expect(api.sandbox.db.get('calls', call.id)).toMatchObject({ status: 'completed', transfer_status: null })
      expect(api.sandbox.db.get('calls', call.id)!.ended_at).not.toBeNull()
    })
  })

  describe('the request journal, GET /_sandbox/requests', () => {
    it('keeps every query parameter as sent, __proto__ too', async () => {
      await api.request('/v1/calls?__proto__=a&__proto__=b&limit=1')
      const [entry] = (await api.request('/_sandbox/requests?limit=1', { key: null })).body.data
      // Compared as JSON: in an object literal, __proto__ would set the prototype instead.
      expect(JSON.stringify(entry.query)).toBe('{"__proto__":["a","b"],"limit":"1"}')
    })

    it('lists the API requests newest first, with their fields, and none of the control plane', async () => {
      const sent = [
        await api.request('/v1/me'),
        await api.request('/v1/calls?limit=2&status=completed'),
        await api.request('/_sandbox/health', { key: null }),
        await api.request('/v1/calls?status=failed&status=blocked', { key: 'sk_sandbox_readonly' }),
        await api.request('/v1/leads', { key: 'sk_nobody_has_this' }),
        await api.request('/v1/nowhere', { key: null }),
        await postJson(api, '/v1/contacts', { phone: '+14155550123' }, { key: 'sk_sandbox_all' }),
        await api.request('/_sandbox/clock', { key: null }),
      ]
      const answer = await api.request('/_sandbox/requests', { key: null })
      expect(answer.status).toBe(200)
      const entries = answer.body.data
      const api_ = sent.filter((_, i) => i !== 2 && i !== 7)
      expect(entries).toHaveLength(6)
      expect(entries.map(({ request_id }: { request_id: string }) => request_id)).toEqual(
        api_.map(({ headers }) => headers.get('x-request-id')).reverse(),
      )
      for (const entry of entries) {
        expect(Object.keys(entry).sort()).toEqual(JOURNAL_FIELDS)
        expect(entry.timestamp).toBe(NOW)
        expect(entry.duration_ms).toBeGreaterThanOrEqual(0)
      }
      const shown = entries.map(({ method, path, query, status, key }: any) => ({ method, path, query, status, key }))
      expect(shown).toEqual(
        [
          { method: 'GET', path: '/v1/me', query: {}, status: 200, key: 'sk_sandbox_all' },
          {
            method: 'GET',
            path: '/v1/calls',
            query: { limit: '2', status: 'completed' },
            status: 200,
            key: 'sk_sandbox_all',
          },
          {
            method: 'GET',
            path: '/v1/calls',
            query: { status: ['failed', 'blocked'] },
            status: 400,
            key: 'sk_sandbox_readonly',
          },
          // An unknown key shows its last 4 characters only.
          { method: 'GET', path: '/v1/leads', query: {}, status: 401, key: '…this' },
          { method: 'GET', path: '/v1/nowhere', query: {}, status: 404, key: null },
          { method: 'POST', path: '/v1/contacts', query: {}, status: 201, key: 'sk_sandbox_all' },
        ].reverse(),
      )
      // Asking for the journal is not journaled either.
      expect(await get('/_sandbox/requests')).toHaveLength(6)
      expect((await health()).journal).toEqual({ entries: 6, capacity: 1_000 })
      expect(api.sandbox.journal.entries()).toEqual(entries)
    })

    it('gives the newest `limit` entries, and refuses a limit that is no positive integer', async () => {
      for (let i = 0; i < 5; i++) await api.request(`/v1/calls?limit=${i + 1}`)
      const two = await get('/_sandbox/requests?limit=2')
      expect(two.map(({ query }: any) => query.limit)).toEqual(['5', '4'])
      expect(await get('/_sandbox/requests?limit=50')).toHaveLength(5)
      for (const limit of ['0', '-1', 'two', '1.5', '']) {
        const answer = await api.request(`/_sandbox/requests?limit=${limit}`, { key: null })
        expect(answer.status, limit).toBe(400)
        expect(answer.body.error).toMatchObject({ code: 'invalid_parameter', param: 'limit' })
      }
      const unknown = await api.request('/_sandbox/requests?sinse=2026-01-01', { key: null })
      expect(unknown.status).toBe(400)
      expect(unknown.body.error).toMatchObject({
        code: 'unknown_parameter',
        param: 'sinse',
        details: { did_you_mean: 'since' },
      })
    })

    it('keeps each request with its headers and body and its answer, a built-in key whole, bodies cut at 4 KiB', async () => {
      await postJson(
        api,
        '/v1/contacts',
        { phone: '+14155550123', notes: 'x'.repeat(5_000) },
        { key: 'sk_sandbox_all' },
      )
      await postJson(api, '/v1/contacts', { phone: 'nope' }, { key: 'sk_sandbox_readonly' })
      const [refused, tooLong] = await get('/_sandbox/requests')
      expect(refused.request.headers.authorization).toBe('Bearer sk_sandbox_readonly')
      expect(refused.request).toMatchObject({ body: '{"phone":"nope"}', body_truncated: false })
      expect(refused.response.headers['content-type']).toBe('application/json')
      expect(refused.response.headers['x-request-id']).toBe(refused.request_id)
      // The answer says which check refused it and why.
      expect(JSON.parse(refused.response.body).error).toMatchObject({ code: 'insufficient_scope' })
      expect(tooLong.request.body).toHaveLength(4_096)
      expect(tooLong.request.body_truncated).toBe(true)
      expect(tooLong.status).toBe(201)
      const listed = (await get('/_sandbox/requests?limit=1')).at(0)
      expect(listed.response.body_truncated).toBe(false)
    })

    it('pages past the newest entries with offset, filtered or not, and counts every match', async () => {
      for (let i = 1; i <= 5; i++) await api.request(`/v1/calls?limit=${i}`)
      await api.request('/v1/nowhere')
      const found = async (query: string) => (await api.request(`/_sandbox/requests?${query}`, { key: null })).body
      const limits = (body: any) => body.data.map(({ query }: any) => query.limit)
      const all = await found('limit=2&offset=1')
      expect([all.data.map(({ path }: any) => path), all.count]).toEqual([['/v1/calls', '/v1/calls'], 6])
      expect(limits(all)).toEqual(['5', '4'])
      const calls = await found('path=/v1/calls&limit=2&offset=2')
      expect([limits(calls), calls.count]).toEqual([['3', '2'], 5])
      expect(limits(await found('path=/v1/calls&limit=2&offset=4'))).toEqual(['1'])
      const past = await found('offset=1000000')
      expect([past.data, past.count]).toEqual([[], 6])
    })

    it('filters by method, path, status, key, since, until and request id, and counts what matches, the limit aside', async () => {
      await api.request('/v1/calls?limit=1')
      await api.request('/v1/calls?limit=1', { key: 'sk_sandbox_readonly' })
      await api.request('/v1/contacts?limit=1', { key: 'sk_sandbox_calls' })
      await api.request('/v1/nowhere')
      await postJson(api, '/v1/contacts', { phone: '+14155550124' }, { key: 'sk_sandbox_all' })
      const found = async (query: string) => (await api.request(`/_sandbox/requests?${query}`, { key: null })).body
      expect((await found('status=4xx')).data.map(({ path }: any) => path)).toEqual(['/v1/nowhere', '/v1/contacts'])
      expect((await found('status=403')).count).toBe(1)
      expect((await found('method=post')).data.map(({ status }: any) => status)).toEqual([201])
      expect((await found('path=/v1/calls')).count).toBe(2)
      expect((await found('path=/v1/c*')).count).toBe(4)
      expect((await found('key=sk_sandbox_readonly')).data).toHaveLength(1)
      const limited = await found('path=/v1/c*&limit=1')
      expect([limited.data.length, limited.count]).toEqual([1, 4])
      expect((await found(`since=${encodeURIComponent(NOW)}`)).count).toBe(5)
      expect((await found('since=2026-11-20T12:00:01Z')).count).toBe(0)
      expect((await found(`until=${encodeURIComponent(NOW)}`)).count).toBe(0)
      expect((await found('since=2026-11-20T11:00:00Z&until=2026-11-20T12:00:01Z')).count).toBe(5)
      const [newest, older] = (await found('limit=2')).data
      const byId = await found(`request_id=${older.request_id}`)
      expect([byId.count, byId.data[0].request_id, byId.data[0].path]).toEqual([1, older.request_id, older.path])
      expect(newest.request_id).not.toBe(older.request_id)
      expect((await found('request_id=req_notOneOfTheJournals')).count).toBe(0)
      for (const [query, param] of [
        ['until=tomorrow', 'until'],
        ['request_id=9f3', 'request_id'],
        [`request_id=req_${'x'.repeat(65)}`, 'request_id'],
        ['status=4x', 'status'],
        ['path=v1', 'path'],
        ['since=yesterday', 'since'],
        ['method=G E T', 'method'],
        ['offset=-1', 'offset'],
        ['offset=1000001', 'offset'],
        ['offset=99999999', 'offset'],
        ['offset=two', 'offset'],
      ]) {
        const answer = await api.request(`/_sandbox/requests?${query}`, { key: null })
        expect(answer.status, query).toBe(400)
        expect(answer.body.error).toMatchObject({ code: 'invalid_parameter', param })
      }
    })
  })

  describe('near misses', () => {
    it('names the endpoint a near path was meant for, and the parameter a near name was meant for', async () => {
      const path = await api.request('/v1/call')
      expect(path.status).toBe(404)
      expect(path.body.error).toMatchObject({ code: 'not_found', details: { did_you_mean: '/v1/calls' } })
      expect(path.body.error.message).toMatch(/Did you mean \/v1\/calls\?/)
      const record = await api.request('/v1/contact/3f2b8c1e-9d4a-4e7b-8c2f-1a2b3c4d5e6f')
      expect(record.body.error.details).toEqual({ did_you_mean: '/v1/contacts/3f2b8c1e-9d4a-4e7b-8c2f-1a2b3c4d5e6f' })
      const parameter = await api.request('/v1/calls?stauts=completed')
      expect(parameter.body.error).toMatchObject({ code: 'unknown_parameter', details: { did_you_mean: 'status' } })
      // A 404 under /_sandbox/ lists every endpoint there, the probes' and the sessions' too.
      const control = await api.request('/_sandbox/nothing-here', { key: null })
      for (const endpoint of [
        'GET /_sandbox/live',
        'GET /_sandbox/ready',
        'POST /_sandbox/sessions',
        'POST /_sandbox/reset',
      ]) {
        expect(control.body.error.message).toContain(endpoint)
      }
      // Far from every endpoint and parameter: no guess.
      expect((await api.request('/v1/invoices')).body.error.details).toBeUndefined()
      expect((await api.request('/v1/calls?colour=red')).body.error.details).toBeUndefined()
    })
  })

  describe('the keys, GET /_sandbox/keys', () => {
    it('lists each key with its organization and scopes, as a 403 names them', async () => {
      const keys = await get('/_sandbox/keys')
      expect(keys.map(({ key }: { key: string }) => key)).toEqual([
        'sk_sandbox_all',
        'sk_sandbox_readonly',
        'sk_sandbox_calls',
        'sk_sandbox_org2',
      ])
      expect(keys[2]).toEqual({
        key: 'sk_sandbox_calls',
        organization_id: ORG_1,
        organization_name: expect.any(String),
        scopes: ['calls:read'],
      })
      expect(keys[3].organization_id).toBe(ORG_2)
    })
  })

  describe('the usage report, GET /_sandbox/usage', () => {
    it('lists under an endpoint only the parameters it takes, not the unknown ones a client sent', async () => {
      for (let i = 0; i < 20; i++) await api.request(`/v1/calls?limit=1&bogus_${i}=1`)
      const [usage] = (await api.request('/_sandbox/usage', { key: null })).body.data
      expect(usage.endpoints).toEqual([
        { method: 'GET', path: '/v1/calls', requests: 20, statuses: { 400: 20 }, parameters: ['limit'] },
      ])
    })

    it('lists no inherited name as a parameter: toString, constructor and __proto__ are unknown parameters of /v1/calls', async () => {
      await api.request('/v1/calls?toString=1&constructor=2')
      await api.request('/v1/calls?__proto__=3&hasOwnProperty=4')
      const [usage] = await get('/_sandbox/usage')
      expect(usage.endpoints).toEqual([
        { method: 'GET', path: '/v1/calls', requests: 2, statuses: { 400: 2 }, parameters: [] },
      ])
    })

    it('shows per key its endpoints, parameters and statuses, what it never touched, and the scopes it needed', async () => {
      const phone = encodeURIComponent('+16175550123')
      await api.request('/v1/calls?limit=5&status=completed', { key: 'sk_sandbox_readonly' })
      await api.request(`/v1/calls?phone=${phone}`, { key: 'sk_sandbox_readonly' })
      await api.request('/v1/calls/not-a-uuid', { key: 'sk_sandbox_readonly' })
      await api.request('/v1/leads?urgency=high', { key: 'sk_sandbox_readonly' })
      await api.request('/v1/calls', { key: 'sk_sandbox_calls' })
      await api.request('/v1/leads', { key: 'sk_sandbox_calls' })
      await api.request('/v1/leads', { key: 'sk_sandbox_calls' })
      await api.request('/v1/me', { key: 'sk_nobody_has_this' })
      await api.request('/v1/me', { key: null })
      await api.request('/_sandbox/health', { key: null })

      const answer = await api.request('/_sandbox/usage', { key: null })
      expect(answer.status).toBe(200)
      const report = answer.body.data
      expect(report.map(({ key }: { key: string }) => key).sort()).toEqual(['sk_sandbox_calls', 'sk_sandbox_readonly'])
      const readonly = report.find(({ key }: { key: string }) => key === 'sk_sandbox_readonly')
      expect(readonly).toMatchObject({ organization_id: ORG_1, requests: 4 })
      expect(readonly.endpoints).toEqual(
        expect.arrayContaining([
          {
            method: 'GET',
            path: '/v1/calls',
            requests: 2,
            statuses: { 200: 2 },
            parameters: ['limit', 'phone', 'status'],
          },
          { method: 'GET', path: '/v1/calls/:call_id', requests: 1, statuses: { 400: 1 }, parameters: [] },
          { method: 'GET', path: '/v1/leads', requests: 1, statuses: { 200: 1 }, parameters: ['urgency'] },
        ]),
      )
      expect(readonly.endpoints).toHaveLength(3)
      expect(readonly.untouched_endpoints).toEqual(
        ENDPOINTS.filter((id) => !['GET /v1/calls', 'GET /v1/calls/:call_id', 'GET /v1/leads'].includes(id)),
      )
      expect(readonly.scopes).toEqual({
        granted: ['appointments:read', 'calls:read', 'contacts:read', 'leads:read'],
        needed: ['calls:read', 'leads:read'],
        unused: ['appointments:read', 'contacts:read'],
        missing: [],
      })

      // A 403 shows as a scope the integration needs and the key lacks.
      const calls = report.find(({ key }: { key: string }) => key === 'sk_sandbox_calls')
      expect(calls.requests).toBe(3)
      expect(calls.endpoints).toContainEqual({
        method: 'GET',
        path: '/v1/leads',
        requests: 2,
        statuses: { 403: 2 },
        parameters: [],
      })
      expect(calls.scopes).toEqual({
        granted: ['calls:read'],
        needed: ['calls:read', 'leads:read'],
        unused: [],
        missing: ['leads:read'],
      })
    })

    it('counts every request of a key, 404 and 405 included, under endpoints only those that reached one, and is empty after a reset', async () => {
      await api.request('/v1/nowhere')
      await api.request('/v1/me', { method: 'DELETE' })
      await api.request('/v1/me')
      const [all] = await get('/_sandbox/usage')
      expect(all.key).toBe('sk_sandbox_all')
      expect(all.requests).toBe(3)
      expect(all.endpoints).toEqual([
        { method: 'GET', path: '/v1/me', requests: 1, statuses: { 200: 1 }, parameters: [] },
      ])
      expect(all.scopes.needed).toEqual([])
      expect(all.scopes.unused).toEqual(all.scopes.granted)
      await postJson(api, '/_sandbox/reset')
      expect(await get('/_sandbox/usage')).toEqual([])
    })
  })

  describe('scenarios', () => {
    it('lists the scenarios and which one is in use', async () => {
      const scenarios = await get('/_sandbox/scenarios')
      expect(scenarios.map(({ name, current }: any) => [name, current])).toEqual([
        ['default', true],
        ['empty', false],
        ['busy', false],
        ['degraded', false],
      ])
      for (const { description } of scenarios) expect(description.length).toBeGreaterThan(20)
      await postJson(api, '/_sandbox/reset', { scenario: 'empty' })
      expect(
        (await get('/_sandbox/scenarios')).filter(({ current }: any) => current).map(({ name }: any) => name),
      ).toEqual(['empty'])
    })

    it('empty: every organization and key, no records at all', async () => {
      const answer = await postJson(api, '/_sandbox/reset', { scenario: 'empty' })
      expect(answer.status).toBe(200)
      expect(answer.body.data).toMatchObject({
        scenario: 'empty',
        records: { calls: 0, contacts: 0, leads: 0, appointments: 0 },
      })
      for (const key of ['sk_sandbox_all', 'sk_sandbox_org2']) {
        expect((await get('/v1/me', key)).organization_id).toBe(key === 'sk_sandbox_all' ? ORG_1 : ORG_2)
        for (const kind of ['calls', 'contacts', 'leads', 'appointments']) {
          const list = (await api.request(`/v1/${kind}`, { key })).body
          expect(list).toMatchObject({ data: [], has_more: false, next_cursor: null })
        }
      }
      // A 409 asked for in an empty world has no contact to point at.
      // Simulating a call still works there.
      const call = await simulate()
      expect((await health()).records).toMatchObject({ calls: 1, contacts: 1 })
      expect(organizationOf(call)).toBe(ORG_1)
    })

    it('busy: 5,000 calls for org 1 and the records behind them; org 2 as it was', async () => {
      const answer = await postJson(api, '/_sandbox/reset', { scenario: 'busy' })
      expect(answer.body.data.scenario).toBe('busy')
      const { db } = api.sandbox
      expect(db.count('calls', ORG_1)).toBe(5_000)
      expect(db.count('calls', ORG_2)).toBe(40)
      expect(answer.body.data.records.calls).toBe(5_040)
      expect(db.count('contacts', ORG_1)).toBeGreaterThan(1_000)
      expect(db.count('leads', ORG_1)).toBeGreaterThan(500)
      expect(db.count('appointments', ORG_1)).toBeGreaterThan(300)
      const page = (await api.request('/v1/calls?limit=100')).body
      expect(page.data).toHaveLength(100)
      expect(page.has_more).toBe(true)
    })

    it('degraded: the default world behind latency of 200 to 1,500 ms and an error rate of 0.1', async () => {
      const seeded = await health()
      const firstPage = await get('/v1/calls?limit=10')
      const answer = await postJson(api, '/_sandbox/reset', { scenario: 'degraded' })
      expect(answer.body.data).toEqual({
        ...seeded,
        scenario: 'degraded',
        // The scenario's own settings, as it starts with them.
        settings: { latency: { min: 200, max: 1_500 }, error_rate: 0.1, rate_limit: null, changed: [] },
      })
      expect(api.sandbox.options).toMatchObject({ latency: { min: 200, max: 1_500 }, errorRate: 0.1 })
      const started = performance.now()
      const slow = await api.request('/v1/calls?limit=10')
      expect(performance.now() - started).toBeGreaterThanOrEqual(199)
      expect([200, 500, 503]).toContain(slow.status)
      if (slow.status === 200) expect(slow.body.data).toEqual(firstPage)
      // The control plane has no faults.
      expect((await api.request('/_sandbox/health', { key: null })).status).toBe(200)
    })

    it('swaps by the reset body and back; a reset without one keeps the scenario in use', async () => {
      const seeded = await health()
      const firstPage = await get('/v1/calls?limit=50')
      await postJson(api, '/_sandbox/reset', { scenario: 'empty' })
      await createContact({ phone: '+14155550123' })
      expect((await health()).records.contacts).toBe(1)
      await postJson(api, '/_sandbox/reset')
      expect(await health()).toMatchObject({
        scenario: 'empty',
        records: { calls: 0, contacts: 0, leads: 0, appointments: 0 },
      })
      await api.sandbox.reset({ scenario: 'busy' })
      expect((await health()).scenario).toBe('busy')
      const back = await postJson(api, '/_sandbox/reset', { scenario: 'default' })
      expect(back.body.data).toEqual(seeded)
      expect(await get('/v1/calls?limit=50')).toEqual(firstPage)
    })
  })
})

describe.each(named)('a scenario given at creation, %s', (_name, make) => {
  it('seeds that scenario, and a reset keeps it', () =>
    using(make, { scenario: 'empty' }, async (api) => {
      const health = dataOf(await api.request('/_sandbox/health', { key: null }))
      expect(health).toMatchObject({ scenario: 'empty', records: { calls: 0, contacts: 0, leads: 0, appointments: 0 } })
      await postJson(api, '/_sandbox/calls')
      await postJson(api, '/_sandbox/reset')
      expect(dataOf(await api.request('/_sandbox/health', { key: null })).records.calls).toBe(0)
    }))
})

describe.each(named)('the journal size, %s', (_name, make) => {
  it('keeps journalSize entries, the newest', () =>
    using(make, { journalSize: 3 }, async (api) => {
      for (let i = 0; i < 7; i++) await api.request(`/v1/calls?limit=${i + 1}`)
      const entries = dataOf(await api.request('/_sandbox/requests', { key: null }))
      expect(entries.map(({ query }: any) => query.limit)).toEqual(['7', '6', '5'])
      expect(dataOf(await api.request('/_sandbox/health', { key: null })).journal).toEqual({ entries: 3, capacity: 3 })
    }))
})

describe('the journal over a long run, in process', () => {
  it('holds exactly journalSize entries after 10,000 requests: the newest ones', () =>
    using(inProcess, {}, async (api) => {
      const { journalSize } = api.sandbox.options
      expect(journalSize).toBe(1_000)
      // Straight to the MSW handlers, as setupServer hands them a request: the same answer, a tenth of the cost.
      const origin = api.sandbox.options.baseUrl
      for (let i = 0; i < 10_000; i++) {
        const headers = i % 2 === 0 ? { Authorization: 'Bearer sk_sandbox_all' } : undefined
        const response = await getResponse(api.sandbox.handlers, new Request(`${origin}/v1/me?n=${i}`, { headers }))
        if (response?.status !== 400 && response?.status !== 401)
          throw new Error(`request ${i} answered ${response?.status}`)
      }
      const entries = dataOf(await api.request('/_sandbox/requests', { key: null }))
      expect(entries).toHaveLength(journalSize)
      expect(entries.map(({ query }: any) => Number(query.n))).toEqual(
        Array.from({ length: journalSize }, (_, i) => 9_999 - i),
      )
      expect(dataOf(await api.request('/_sandbox/health', { key: null })).journal).toEqual({
        entries: journalSize,
        capacity: journalSize,
      })
      expect(api.sandbox.journal.entries(2).map(({ query }) => query.n)).toEqual(['9999', '9998'])
      // The usage report counted every one of the valid key's requests, not a window of them.
      const [usage] = dataOf(await api.request('/_sandbox/usage', { key: null }))
      expect(usage.requests).toBe(5_000)
    }))
})

describe.each(named)('the admin token, %s', (_name, make) => {
  const TOKEN = 'admin-token-for-tests'
  let api: Transport
  beforeAll(async () => {
    api = await make({ adminToken: TOKEN })
  })
  afterAll(() => api.close())

  it.each([
    ['GET', '/_sandbox/health'],
    ['POST', '/_sandbox/reset'],
    ['GET', '/_sandbox/requests'],
    ['GET', '/_sandbox/usage'],
    ['POST', '/_sandbox/calls'],
    ['GET', '/_sandbox/clock'],
    ['POST', '/_sandbox/clock'],
    ['GET', '/_sandbox/scenarios'],
    ['GET', '/_sandbox/choices'],
  ])('%s %s answers 401 without the token or with another, and works with it', async (method, path) => {
    const before = api.sandbox.health()
    for (const key of [null, 'sk_sandbox_all', 'admin-token-for-test', `${TOKEN}x`]) {
      const answer = await api.request(path, { method, key })
      expect(answer.status, String(key)).toBe(401)
      expect(answer.body.error).toMatchObject({ type: 'authentication_error', code: 'unauthorized' })
      expect(answer.headers.get('www-authenticate')).toBe('Bearer')
    }
    const basic = await api.request(path, {
      method,
      key: null,
      headers: { Authorization: `Basic ${btoa(`admin:${TOKEN}`)}` },
    })
    expect(basic.status).toBe(401)
    expect(api.sandbox.health()).toEqual(before)
    const body = path === '/_sandbox/clock' && method === 'POST' ? JSON.stringify({ advance_seconds: 0 }) : undefined
    const allowed = await api.request(path, {
      method,
      key: TOKEN,
      body,
      headers: body ? { 'Content-Type': 'application/json' } : {},
    })
    expect(allowed.status).toBe(method === 'POST' && path === '/_sandbox/calls' ? 201 : 200)
    await api.sandbox.reset()
  })

  it('leaves the API as it was: API keys work, the admin token is no API key', async () => {
    expect((await api.request('/v1/me')).status).toBe(200)
    const admin = await api.request('/v1/me', { key: TOKEN })
    expect(admin.status).toBe(401)
    expect(admin.body.error.code).toBe('unauthorized')
  })
})

describe('binding the server beyond loopback', () => {
  it('refuses to start on 0.0.0.0 without an admin token, saying why', async () => {
    await expect(startServer({ now: NOW, host: '0.0.0.0', port: 0, quiet: true })).rejects.toThrow(/admin token/)
  })

  it('starts on 0.0.0.0 with one, and its control plane wants it', async () => {
    const running = await startServer({
      now: NOW,
      host: '0.0.0.0',
      port: 0,
      quiet: true,
      adminToken: 'admin-token-for-tests',
    })
    try {
      const port = new URL(running.url).port
      const health = (headers: Record<string, string>) => fetch(`http://127.0.0.1:${port}/_sandbox/health`, { headers })
      expect((await health({})).status).toBe(401)
      expect((await health({ Authorization: 'Bearer admin-token-for-tests' })).status).toBe(200)
    } finally {
      await running.close()
    }
  })
})
