// The testing guide's set-up on msw 3, word for word, then the checks the README's snippet has on msw 2. It runs in
// npm run test:msw3 (vitest.config.ts swaps it for test/readme.test.ts); msw 2 ignores onUnhandledFrame, so it
// would let a request to another base URL through with a warning there.
import { checkTheReadmeSetUp } from '../support/readmeSetUp.js'

import { setupSandboxServer } from 'call-sandbox/node'
import { afterAll, beforeAll, beforeEach } from 'vitest'

const { server, sandbox } = setupSandboxServer({
  seed: 1,
  now: '2026-11-20T12:00:00Z',
  baseUrl: 'https://api.example.com',      // your client's base URL: the sandbox answers there only
})
beforeAll(() => server.listen({ onUnhandledFrame: 'error' })) // msw 3's name for msw 2's onUnhandledRequest
beforeEach(() => sandbox.reset())
afterAll(() => server.close())

checkTheReadmeSetUp()
