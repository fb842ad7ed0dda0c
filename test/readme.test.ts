// The README's vitest snippet, as a user would write it: against the built
// package, imported by its name (what is published is what is tested).
import { setupSandboxServer } from 'call-sandbox/node'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'

const { server, sandbox } = setupSandboxServer({ seed: 1, now: '2026-11-20T12:00:00Z' })
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
beforeEach(() => sandbox.reset())
afterAll(() => server.close())

it('shows the newest calls first', async () => {
  const response = await fetch('https://api.example.com/v1/calls?limit=5', {
    headers: { Authorization: 'Bearer sk_sandbox_all' },
  })
  const { data } = await response.json()
  expect(data).toHaveLength(5)
  expect(data.map((call: { created_at: string }) => call.created_at)).toEqual(
    data
      .map((call: { created_at: string }) => call.created_at)
      .sort()
      .reverse(),
  )
})

it('runs the in-process examples of the README', async () => {
  await sandbox.addContact({ phone: '+14155550123', name: 'Dana Whitfield' })
  const live = await sandbox.addCall({ status: 'in-progress' })
  expect(live.call.ended_at).toBeNull()
  const known = await sandbox.addCall({ caller_phone: '+14155550123', reason: 'toothache' })
  expect(known.contact.total_calls).toBe(1)
  expect((await sandbox.addLead({ lead: { status: 'qualified', urgency: 'high' } })).lead.status).toBe('qualified')
  expect((await sandbox.addAppointment({ appointment: { status: 'cancelled' } })).appointment.status).toBe('cancelled')
  sandbox.clock.advance(10 * 60_000)
  const me = await fetch('https://api.example.com/v1/me', { headers: { Authorization: 'Bearer sk_sandbox_all' } })
  expect((await me.json()).meta.timestamp).toBe('2026-11-20T12:10:00.000Z')
  expect(sandbox.db.get('calls', live.call.id)?.status).toBe('completed')
})
