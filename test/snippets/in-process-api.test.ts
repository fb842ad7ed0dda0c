// The in-process API as docs/guides/testing.md shows it (the block between the
// markers, word for word), run against the built package, then checked.
// #region snippet
import { createSandbox } from 'call-sandbox'
import { setupServer } from 'msw/node'

const sandbox = createSandbox({
  seed: 1,                            // default 1
  now: '2026-11-20T12:00:00Z',        // the instant the world is seeded at; default: the current time
  clock: 'fixed',                     // 'fixed' (default with now): stands still; 'running' (default without): real time
  calls: 2_000,                       // calls of the first organization (default 300)
  baseUrl: 'https://api.example.com', // respond only there (default: any origin)
})
await sandbox.ready                   // the handlers wait for it too
const server = setupServer(...sandbox.handlers) // or setupWorker(...), or your own setupServer beside yours

await sandbox.reset()                 // back to the seeded world and the starting clock
const dana = await sandbox.addContact({ phone: '+14155550123', name: 'Dana Whitfield' }) // as POST /v1/contacts does
const live = await sandbox.addCall({ status: 'in-progress' })                 // { call, contact, lead?, appointment? }
const known = await sandbox.addCall({ caller_phone: dana.phone, reason: 'toothache' }) // a known caller, a fixture's reason
const { lead } = await sandbox.addLead({ lead: { status: 'qualified', urgency: 'high' } }) // a call that made a lead
const { appointment } = await sandbox.addAppointment({ appointment: { status: 'cancelled' } })
sandbox.clock.advance(10 * 60_000)    // meta.timestamp and new records follow; a live call ends when its time comes
sandbox.clock.set(Date.parse('2026-12-24T08:00:00Z'))
await sandbox.settle()                // what the handlers do before each response: ends what the clock has passed
const stored = sandbox.db.get('calls', live.call.id) // the stored records, to read (write through the methods above)
// #endregion snippet

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

describe('the in-process API of the testing guide', () => {
  beforeAll(() => server.listen({ onUnhandledRequest: 'bypass' }))
  afterAll(() => server.close())
  const get = (path: string) =>
    fetch(`https://api.example.com${path}`, { headers: { Authorization: 'Bearer sk_sandbox_all' } })

  it('seeds the calls asked for, and answers on its baseUrl', async () => {
    expect(sandbox.db.count('calls', dana.organization_id)).toBe(2_000 + 4)
    const me = await (await get('/v1/me')).json()
    expect(me.meta.timestamp).toBe('2026-12-24T08:00:00.000Z')
  })

  it('writes the contact, the calls, the lead and the appointment, each readable through the API', async () => {
    expect(dana.name).toBe('Dana Whitfield')
    expect(known.contact.id).toBe(dana.id)
    expect(known.contact.total_calls).toBe(1)
    expect((await (await get(`/v1/contacts/${dana.id}`)).json()).data.total_calls).toBe(1)
    expect((await get(`/v1/calls/${known.call.id}`)).status).toBe(200)
    expect([lead.status, lead.urgency, appointment.status]).toEqual(['qualified', 'high', 'cancelled'])
    const ids = async (path: string) => (await (await get(`${path}?limit=100`)).json()).data.map((r: any) => r.id)
    expect(await ids('/v1/leads')).toContain(lead.id)
    expect(await ids('/v1/appointments')).toContain(appointment.id)
  })

  it('ends the live call once the clock passes its end', () => {
    expect(live.call.ended_at).toBeNull()
    expect(stored?.status).toBe('completed')
  })
})
