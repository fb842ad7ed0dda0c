// The testing guide's sync test, word for word: what `since` finds and what it does not (a call in progress that
// ends keeps its created_at), and the honest way to see the end, by id.
import { setupSandboxServer } from 'call-sandbox/node'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { onUnhandled } from '../support/onUnhandled.js'

const { server, sandbox } = setupSandboxServer({ seed: 1, now: '2026-11-20T12:00:00Z', baseUrl: 'https://api.example.com' })
beforeAll(() => server.listen(onUnhandled('error')))
beforeEach(() => sandbox.reset())
afterAll(() => server.close())

it('sees a call in progress end by reading it again, not through since', async () => {
  const headers = { Authorization: 'Bearer sk_sandbox_all' }
  const read = async (path: string) => (await fetch(`https://api.example.com${path}`, { headers })).json()

  const { data: calls } = await read('/v1/calls?limit=100')  // a sync's first read (one page is enough here)
  const newest = calls[0].created_at                          // where its next read starts
  const live = calls.filter((call: { ended_at: string | null }) => call.ended_at === null)
  expect(live.length).toBeGreaterThan(0)                      // in-progress or forwarding: they end later

  sandbox.clock.advance(60 * 60_000)                          // an hour on: every one of them has ended

  const { data: created } = await read(`/v1/calls?since=${newest}`)
  expect(created).toEqual([])                                 // since compares created_at: no ended call comes back
  for (const { id } of live) {
    const { data: call } = await read(`/v1/calls/${id}`)      // so read each call held in progress again, by id
    expect(call.ended_at).not.toBeNull()
    expect(call.status).not.toMatch(/^(in-progress|forwarding)$/)
  }
})
