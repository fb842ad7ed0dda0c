import { getResponse } from 'msw'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { ApiError, ContactExistsError, createSandbox, type Sandbox } from '../src/index.js'
import { defaultOrganizations } from '../src/seed/fixtures.js'
import { addedEndings, endingOf } from './support/endings.js'
import { inProcess, NOW, ORG_1, ORG_2, walk, type Transport } from './support/transports.js'

async function snapshot(api: Transport) {
  const lists = await Promise.all(
    ['/v1/calls?limit=100', '/v1/contacts?limit=100', '/v1/leads?limit=100', '/v1/appointments?limit=100'].map((path) =>
      walk(api, path),
    ),
  )
  return JSON.stringify(lists)
}

describe('createSandbox', () => {
  it('gives one MSW handler for the whole API, and loads its world before answering', async () => {
    const sandbox = createSandbox({ now: NOW })
    expect(sandbox.handlers).toHaveLength(1)
    const response = await getResponse(
      sandbox.handlers,
      new Request('https://anywhere.example/v1/me', { headers: { Authorization: 'Bearer sk_sandbox_all' } }),
    )
    expect(response?.status).toBe(200)
    expect(sandbox.db.count('calls', ORG_1)).toBe(300)
  })

  it('matches any origin by default, and only baseUrl (with its path) when given', async () => {
    const sandbox = createSandbox({ now: NOW, baseUrl: 'https://api.example.com/call-api/' })
    const ask = (url: string) =>
      getResponse(sandbox.handlers, new Request(url, { headers: { Authorization: 'Bearer sk_sandbox_all' } }))
    expect((await ask('https://api.example.com/call-api/v1/me'))?.status).toBe(200)
    expect(await ask('https://api.example.com/v1/me')).toBeUndefined()
    expect(await ask('https://other.example/call-api/v1/me')).toBeUndefined()
  })

  it('lets requests outside /v1/ pass through', async () => {
    const sandbox = createSandbox({ now: NOW })
    expect(await getResponse(sandbox.handlers, new Request('https://api.example.com/health'))).toBeUndefined()
    expect(await getResponse(sandbox.handlers, new Request('https://api.example.com/other/v1x/calls'))).toBeUndefined()
  })

  const [first] = defaultOrganizations
  it.each([
    ['a negative seed', { seed: -1 }, 'seed'],
    ['a fractional seed', { seed: 1.5 }, 'seed'],
    ['a now that is no date', { now: 'yesterday' }, 'now'],
    ['a now that is NaN', { now: Number.NaN }, 'now'],
    ['negative calls', { calls: -5 }, 'calls'],
    ['two million calls', { calls: 2_000_000 }, 'calls'],
    ['a baseUrl without scheme', { baseUrl: 'api.example.com' }, 'baseUrl'],
    ['a baseUrl with a query', { baseUrl: 'https://api.example.com/?v=1' }, 'baseUrl'],
    ['no organizations', { organizations: [] }, 'organizations'],
    ['an organization twice', { organizations: [first, first] }, 'appears twice'],
    ['an unknown business type', { organizations: [{ ...first, business_type: 'bakery' }] }, 'business_type'],
    ['a key too short', { organizations: [{ ...first, keys: [{ key: 'short', scopes: [] }] }] }, 'organizations'],
    ['an admin token that is a built-in key', { adminToken: 'sk_sandbox_all' }, 'adminToken must be a secret'],
  ])('refuses %s with an error naming %s', (_name, options, naming) => {
    expect(() => createSandbox(options as never)).toThrow(naming)
  })

  it('serves organizations of your own, with your own keys', async () => {
    const sandbox = createSandbox({
      now: NOW,
      organizations: [
        {
          ...defaultOrganizations[0]!,
          organization_id: 'a1b2c3d4-0000-4000-8000-000000000001',
          organization_name: 'Northside Animal Hospital',
          business_type: 'veterinary_clinic',
          calls: 25,
          keys: [{ key: 'sk_test_vet_frontdesk', scopes: ['calls:read'] }],
        },
      ],
    })
    const me = await getResponse(
      sandbox.handlers,
      new Request('https://x.example/v1/me', { headers: { Authorization: 'Bearer sk_test_vet_frontdesk' } }),
    )
    expect((await me!.json()).data).toMatchObject({
      organization_name: 'Northside Animal Hospital',
      scopes: ['calls:read'],
    })
    const calls = await getResponse(
      sandbox.handlers,
      new Request('https://x.example/v1/calls?limit=100', {
        headers: { Authorization: 'Bearer sk_test_vet_frontdesk' },
      }),
    )
    const body = await calls!.json()
    expect(body.data).toHaveLength(25)
    expect(
      body.data.some((call: { transcript: string }) => call.transcript.includes('Northside Animal Hospital')),
    ).toBe(true)
  })
})

describe('a sandbox in process', () => {
  let api: Transport
  let sandbox: Sandbox
  beforeAll(async () => {
    api = await inProcess()
    sandbox = api.sandbox
  })
  afterAll(() => api.close())

  describe('reset', () => {
    it('restores the seeded world after contacts, calls, leads, appointments and clock changes', async () => {
      const seeded = await snapshot(api)
      await sandbox.addContact({ phone: '+14155550101', name: 'Reset Me' })
      const existing = (
        await api.request(
          '/v1/contacts?limit=1&phone=' +
            encodeURIComponent((await walk(api, '/v1/contacts')).find((c) => c.total_calls > 0).phone),
        )
      ).body.data[0]
      await sandbox.addCall({ caller_phone: existing.phone })
      await sandbox.addLead({ lead: { status: 'converted' } })
      await sandbox.addAppointment({ appointment: { status: 'cancelled' } })
      await api.request('/v1/contacts', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"phone":"+14155550102"}',
      })
      sandbox.clock.advance(3_600_000)
      expect(await snapshot(api)).not.toBe(seeded)
      await sandbox.reset()
      expect(await snapshot(api)).toBe(seeded)
      expect(sandbox.clock.iso()).toBe(NOW)
      expect(sandbox.db.changed).toBe(false)
    })

    it('makes the same ids again after a reset', async () => {
      const first = await sandbox.addContact({ phone: '+14155550103' })
      await sandbox.reset()
      const again = await sandbox.addContact({ phone: '+14155550103' })
      expect(again.id).toBe(first.id)
      await sandbox.reset()
    })
  })

  describe('factories', () => {
    it('adds a call from a new caller: a contact from the call, one call, the story told', async () => {
      const { call, contact } = await sandbox.addCall({
        caller_phone: '+16175550190',
        status: 'completed',
        reason: 'book_cleaning',
      })
      expect(contact).toMatchObject({
        phone: '+16175550190',
        source: 'inbound_call',
        total_calls: 1,
        last_call_at: call.started_at,
      })
      expect(call).toMatchObject({
        caller_phone: '+16175550190',
        contact_id: contact.id,
        status: 'completed',
        organization_id: ORG_1,
      })
      expect(call.transcript).toContain('Harbor Dental Care')
      const listed = (await api.request('/v1/calls?phone=%2B16175550190')).body.data
      expect(listed.map((c: { id: string }) => c.id)).toEqual([call.id])
      await sandbox.reset()
    })

    it("adds a call from a known caller: their contact's total_calls and last_call_at follow", async () => {
      const tenMinutesAgo = new Date(Date.parse(NOW) - 10 * 60_000).toISOString()
      const known = (await walk(api, '/v1/contacts')).find(
        (contact) => contact.source === 'inbound_call' && contact.last_call_at < tenMinutesAgo,
      )
      const { call, contact } = await sandbox.addCall({ caller_phone: known.phone })
      expect(contact.id).toBe(known.id)
      expect(contact.total_calls).toBe(known.total_calls + 1)
      expect(contact.last_call_at).toBe(call.started_at)
      expect((await api.request(`/v1/contacts/${known.id}`)).body.data.total_calls).toBe(known.total_calls + 1)
      await sandbox.reset()
    })

    it.each(['in-progress', 'forwarding'] as const)('adds a live %s call that is still on the line', async (status) => {
      const { call } = await sandbox.addCall({ status })
      expect(call.ended_at).toBeNull()
      const listed = (await api.request(`/v1/calls/${call.id}`)).body.data
      expect(listed.duration_seconds).toBe(Math.floor((Date.parse(NOW) - Date.parse(call.started_at)) / 1000))
      expect(listed.transfer_status).toBe(status === 'forwarding' ? 'initiated' : null)
      await sandbox.reset()
    })

    it('adds a lead and an appointment with overrides, each from its own call', async () => {
      const { lead, call } = await sandbox.addLead({ lead: { status: 'qualified', urgency: 'high' } })
      expect(lead).toMatchObject({
        status: 'qualified',
        urgency: 'high',
        call_log_id: call.id,
        caller_phone: call.caller_phone,
      })
      expect((await api.request('/v1/leads?status=qualified&urgency=high&limit=1')).body.data[0].id).toBe(lead.id)
      const { appointment } = await sandbox.addAppointment({ appointment: { status: 'confirmed' } })
      expect(appointment.status).toBe('confirmed')
      expect(appointment.appointment_time_start > NOW).toBe(true)
      await sandbox.reset()
    })

    it('adds to another organization when asked', async () => {
      const { call } = await sandbox.addCall({ organization_id: ORG_2 })
      expect((await api.request(`/v1/calls/${call.id}`, { key: 'sk_sandbox_org2' })).status).toBe(200)
      expect((await api.request(`/v1/calls/${call.id}`)).status).toBe(404)
      await sandbox.reset()
    })

    it('checks a contact as POST /v1/contacts does', async () => {
      const invalid = sandbox.addContact({ phone: 'nope' })
      await expect(invalid).rejects.toBeInstanceOf(ApiError)
      await expect(invalid).rejects.toMatchObject({ code: 'validation_failed' })
      const taken = (await api.request('/v1/contacts?limit=1')).body.data[0]
      // Below HTTP a phone taken is a domain error, which names the contact; the API maps it to 409 contact_exists.
      const exists = sandbox.addContact({ phone: taken.phone })
      await expect(exists).rejects.toBeInstanceOf(ContactExistsError)
      await expect(exists).rejects.toMatchObject({ code: 'contact_exists', contactId: taken.id })
    })

    it('says what is wrong with a factory input', async () => {
      await expect(sandbox.addCall({ reason: 'bake_a_cake' })).rejects.toThrow(/book_cleaning/)
      await expect(sandbox.addCall({ organization_id: '00000000-0000-4000-8000-000000000000' })).rejects.toThrow(
        /No organization/,
      )
      await expect(sandbox.addCall({ started_at: '2030-01-01T00:00:00Z' })).rejects.toThrow(/started_at/)
    })
  })

  describe('the clock', () => {
    it('stands still at now, and moves when advanced or set: meta.timestamp, new records and live calls follow', async () => {
      expect((await api.request('/v1/me')).body.meta.timestamp).toBe(NOW)
      const live = (await api.request('/v1/calls?status=in-progress&limit=1')).body.data[0]
      // A live call says at least three seconds more (see tellEnding), so it is still on the line two seconds on.
      sandbox.clock.advance(2_000)
      expect((await api.request('/v1/me')).body.meta.timestamp).toBe('2026-11-20T12:00:02.000Z')
      expect((await api.request(`/v1/calls/${live.id}`)).body.data.duration_seconds).toBe(live.duration_seconds + 2)
      const created = await api.request('/v1/contacts', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"phone":"+14155550104"}',
      })
      expect(created.body.data.created_at).toBe('2026-11-20T12:00:02.000Z')
      sandbox.clock.set(Date.parse('2026-12-24T08:00:00Z'))
      expect((await api.request('/v1/me')).body.meta.timestamp).toBe('2026-12-24T08:00:00.000Z')
      await sandbox.reset()
      expect((await api.request('/v1/me')).body.meta.timestamp).toBe(NOW)
    })
  })
  describe('a client polling with since', () => {
    it('sees a call added between two polls, with its new contact and its lead, however long ago the call started', async () => {
      const first = await api.request('/v1/calls?limit=1')
      const since = first.body.meta.timestamp
      sandbox.clock.advance(1_000)
      const { call, contact, lead } = await sandbox.addLead()
      expect(call.started_at < since).toBe(true)

      const calls = await api.request(`/v1/calls?since=${since}`)
      const contacts = await api.request(`/v1/contacts?since=${since}`)
      const leads = await api.request(`/v1/leads?since=${since}`)
      expect(calls.body.data.map((record: { id: string }) => record.id)).toEqual([call.id])
      expect(contacts.body.data.map((record: { id: string }) => record.id)).toEqual([contact.id])
      expect(leads.body.data.map((record: { id: string }) => record.id)).toEqual([lead.id])
      expect(calls.body.data[0].created_at).toBe(sandbox.clock.iso())
    })
  })
})

describe('a sandbox without now', () => {
  it('seeds at the current time and lets its clock run', async () => {
    const before = Date.now()
    const sandbox = createSandbox({ calls: 20 })
    await sandbox.ready
    expect(sandbox.clock.now()).toBeGreaterThanOrEqual(before)
    const first = sandbox.clock.now()
    await vi.waitFor(() => expect(sandbox.clock.now()).toBeGreaterThan(first))
    expect(sandbox.options.fixedClock).toBe(false)
  })
})

describe('factories, checked', () => {
  it('always gives addLead a lead and addAppointment an appointment, however the draws go', async () => {
    const sandbox = createSandbox({ now: NOW, calls: 20 })
    for (let i = 0; i < 30; i++) {
      const withLead = await sandbox.addLead()
      expect(withLead.lead.call_log_id).toBe(withLead.call.id)
      expect(sandbox.db.get('leads', withLead.lead.id)).toEqual(withLead.lead)
      const withAppointment = await sandbox.addAppointment()
      expect(withAppointment.appointment.call_log_id).toBe(withAppointment.call.id)
      expect(sandbox.db.get('appointments', withAppointment.appointment.id)).toEqual(withAppointment.appointment)
    }
  })

  it('reads a started_at without an offset as UTC, and refuses what is no ISO date-time', async () => {
    const sandbox = createSandbox({ now: NOW, calls: 20 })
    const { call } = await sandbox.addCall({ started_at: '2026-11-19T10:00:00' })
    expect(call.started_at).toBe('2026-11-19T10:00:00.000Z')
    await expect(sandbox.addCall({ started_at: 'Nov 19 2026 10:00' })).rejects.toThrow(/started_at must be an ISO 8601/)
  })

  it.each([
    [{ status: 'done' }, /status must be one of completed/],
    [{ caller_phone: '+1' }, /caller_phone must be an E.164 number/],
  ])('refuses %o with an error naming the field', async (input, message) => {
    const sandbox = createSandbox({ now: NOW, calls: 20 })
    await expect(sandbox.addCall(input as never)).rejects.toThrow(message)
  })

  it('refuses a clock set to what is not an instant', () => {
    const sandbox = createSandbox({ now: NOW, calls: 20 })
    expect(() => sandbox.clock.set(Date.parse('2026-12-24 8am'))).toThrow(/epoch milliseconds/)
    expect(sandbox.clock.iso()).toBe(NOW)
  })

  it('keeps a key with the organization of the world it is in, after a scenario swap', async () => {
    const sandbox = createSandbox({ now: NOW })
    await sandbox.reset({ scenario: 'busy' })
    expect(sandbox.apiKey('sk_sandbox_all')!.organization).toBe(sandbox.organizations[0])
    expect(sandbox.apiKey('sk_sandbox_all')!.organization.calls).toBe(5_000)
    expect(sandbox.apiKeys.map(({ organization }) => organization)).toEqual(
      sandbox.apiKeys.map(({ organization }) => sandbox.organization(organization.organization_id)),
    )
  })

  it('looks the key of a request up once', async () => {
    const sandbox = createSandbox({ now: NOW, calls: 20 })
    const lookups = vi.spyOn(sandbox, 'apiKey')
    const response = await getResponse(
      sandbox.handlers,
      new Request('https://x.example/v1/me', { headers: { Authorization: 'Bearer sk_sandbox_all' } }),
    )
    expect(response?.status).toBe(200)
    expect(lookups).toHaveBeenCalledTimes(1)
  })

  it('leaves nothing of a restore that does not fit: a write is all or nothing', async () => {
    const donor = createSandbox({ now: NOW, calls: 20 })
    await donor.addContact({ phone: '+14155550100' })
    const { inserted } = donor.changes()
    const misfit = {
      writes: 2,
      inserted,
      changed: [
        {
          kind: 'contacts' as const,
          record: { ...inserted[0]!.record, id: '00000000-0000-4000-8000-000000000000' } as never,
        },
      ],
    }
    const sandbox = createSandbox({ now: NOW, calls: 20 })
    await expect(sandbox.restore(misfit)).rejects.toThrow(/not in this world/)
    expect(sandbox.db.changed).toBe(false)
    expect(sandbox.db.contactByPhone(sandbox.organization().organization_id, '+14155550100')).toBeUndefined()
    expect(sandbox.changes()).toEqual({ writes: 0, inserted: [], changed: [] })
    // The same contact can be made afterwards, with the id of the first write.
    expect((await sandbox.addContact({ phone: '+14155550100' })).id).toBe(inserted[0]!.record.id)
  })

  it('gives a failed write no number: the ids after it are those an unbroken run makes', async () => {
    const broken = createSandbox({ now: NOW, calls: 20 })
    const unbroken = createSandbox({ now: NOW, calls: 20 })
    await broken.addContact({ phone: '+14155550100' })
    await expect(broken.addContact({ phone: '+14155550100' })).rejects.toMatchObject({ code: 'contact_exists' })
    await unbroken.addContact({ phone: '+14155550100' })
    expect((await broken.addContact({ phone: '+14155550101' })).id).toBe(
      (await unbroken.addContact({ phone: '+14155550101' })).id,
    )
    expect(broken.changes().writes).toBe(2)
  })
})

describe('live calls, the clock and the write queue', () => {
  it('ends a live call added while requests settle the world', async () => {
    const sandbox = createSandbox({ now: NOW })
    await sandbox.ready
    let added = false
    const adding = sandbox.addCall({ status: 'in-progress', reason: 'book_cleaning' }).finally(() => {
      added = true
    })
    // Every request settles first: these walk the pending endings while the call is being stored.
    let settles = 0
    while (!added) {
      await sandbox.settle()
      settles++
    }
    const { call } = await adding
    expect(settles).toBeGreaterThan(0)
    sandbox.clock.advance(60 * 60_000)
    await sandbox.settle()
    expect(sandbox.db.get('calls', call.id)!.ended_at).not.toBeNull()
  })

  it('answers a poll that waited (Prefer: delay) with every record due by its meta.timestamp', async () => {
    const api = await inProcess({ clock: 'running' })
    try {
      const { sandbox } = api
      const { call } = await sandbox.addCall({ status: 'in-progress', reason: 'implant_quote' })
      const ending = endingOf(sandbox, call.id)
      // The lead falls due 300 ms from now, in the middle of a 600 ms delay.
      sandbox.clock.set(Date.parse(ending.lead!.created_at) - 300)
      const since = sandbox.clock.iso()
      const answer = await api.request(`/v1/leads?since=${since}`, { headers: { Prefer: 'delay=600' } })
      expect(answer.body.meta.timestamp >= ending.lead!.created_at).toBe(true)
      expect(answer.body.data.map((lead: { id: string }) => lead.id)).toContain(ending.lead!.id)
    } finally {
      await api.close()
    }
  })

  it('runs overlapping live ticks one after another: a stopped clock moves one interval per tick', async () => {
    const sequential = createSandbox({ now: NOW, live: 10_000 })
    const overlapping = createSandbox({ now: NOW, live: 10_000 })
    try {
      const one = [await sequential.liveTick(), await sequential.liveTick(), await sequential.liveTick()]
      const all = await Promise.all([overlapping.liveTick(), overlapping.liveTick(), overlapping.liveTick()])
      expect(all.map(({ call }) => call.created_at)).toEqual([
        '2026-11-20T12:00:10.000Z',
        '2026-11-20T12:00:20.000Z',
        '2026-11-20T12:00:30.000Z',
      ])
      expect(all.map(({ call }) => call)).toEqual(one.map(({ call }) => call))
    } finally {
      sequential.stop()
      overlapping.stop()
    }
  })

  it('keeps no ending pending once it has fully come, and tells listeners only of settles that wrote', async () => {
    const sandbox = createSandbox({ now: NOW })
    await sandbox.ready
    for (let i = 0; i < 5; i++) await sandbox.addCall({ status: 'in-progress', reason: 'book_cleaning' })
    let changes = 0
    sandbox.onChange(() => changes++)
    // The clock's move is one change; fifty concurrent settles write once between them.
    sandbox.clock.advance(60 * 60_000)
    await Promise.all(Array.from({ length: 50 }, () => sandbox.settle()))
    expect(changes).toBe(2)
    expect([...sandbox.db.pendingEndings()]).toEqual([])
    expect(addedEndings(sandbox)).toBe(5)
  })

  it('refuses a clock outside 1970 to 9000, in process and over the control plane', async () => {
    const api = await inProcess()
    try {
      expect(() => api.sandbox.clock.set(9e15)).toThrow(RangeError)
      expect(() => api.sandbox.clock.set(-1)).toThrow(/1970/)
      const setClock = (body: string) =>
        api.request('/_sandbox/clock', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })
      expect((await setClock('{"now":"1970-01-01T00:00:00Z"}')).status).toBe(200)
      for (const body of ['{"now":"9999-12-31T23:59:59Z"}', '{"advance_seconds":-60}']) {
        const answer = await setClock(body)
        expect(answer.status, body).toBe(422)
        expect(answer.body.error.details[0].message).toMatch(/1970-01-01 to 9000-01-01/)
      }
      expect(api.sandbox.clock.iso()).toBe('1970-01-01T00:00:00.000Z')
      expect(() => createSandbox({ now: '9999-01-01T00:00:00Z' })).toThrow(/now must be from 1971/)
    } finally {
      await api.close()
    }
  })
})
