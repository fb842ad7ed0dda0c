// The README's vitest snippet, word for word, as a user would write it: against
// the built package, imported by its name (what is published is what is tested); then one check beyond it.
import { setupSandboxServer } from 'call-sandbox/node'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'

const { server, sandbox } = setupSandboxServer({ seed: 1, now: '2026-11-20T12:00:00Z' })
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
beforeEach(() => sandbox.reset())          // the seeded world again: undoes only what the test wrote
afterAll(() => server.close())

it('shows the newest calls first', async () => {
  const response = await fetch('https://api.example.com/v1/calls?limit=5', {
    headers: { Authorization: 'Bearer sk_sandbox_all' },
  })
  const { data } = await response.json()
  expect(data).toHaveLength(5)
  expect(data[0].created_at >= data[4].created_at).toBe(true)
})

// Beyond the README's lines: every call of the page, newest first.
it('orders the whole page newest first', async () => {
  const response = await fetch('https://api.example.com/v1/calls?limit=5', {
    headers: { Authorization: 'Bearer sk_sandbox_all' },
  })
  const created = (await response.json()).data.map((call: { created_at: string }) => call.created_at)
  expect(created).toEqual([...created].sort().reverse())
})
