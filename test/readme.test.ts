// The README's vitest snippet on msw 2, word for word, as a user would write it: against the built package,
// imported by its name (what is published is what is tested); then the checks beyond it. On msw 3, whose name for
// onUnhandledRequest is onUnhandledFrame, test/snippets/msw3.test.ts runs in its place.
import { checkTheReadmeSetUp } from './support/readmeSetUp.js'

import { setupSandboxServer } from 'call-sandbox/node'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'

const { server, sandbox } = setupSandboxServer({
  seed: 1,
  now: '2026-11-20T12:00:00Z',
  baseUrl: 'https://api.example.com',      // your client's base URL: the sandbox answers there only
})
beforeAll(() => server.listen({ onUnhandledRequest: 'error' })) // any other request fails (msw 3: onUnhandledFrame)
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

checkTheReadmeSetUp()
