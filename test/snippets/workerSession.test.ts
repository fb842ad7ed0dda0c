// The parallel-CI set-up of docs/guides/sessions.md (testApi.ts): each worker's
// base URL names a session of its own. In process, where the sandbox's handlers
// answer that URL as the standalone server would.
import { setupSandboxServer } from 'call-sandbox/node'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { API_URL } from './testApi.js'

const { server } = setupSandboxServer({ seed: 1, now: '2026-11-20T12:00:00Z' })
const auth = { Authorization: 'Bearer sk_sandbox_all', 'Content-Type': 'application/json' }

describe("a worker's session of the sessions guide", () => {
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
  afterAll(() => server.close())
  beforeEach(async () => {
    expect((await fetch(`${API_URL}/_sandbox/reset`, { method: 'POST' })).status).toBe(200)
  })

  it('names a valid session of its own, made on first use', async () => {
    const [, session] = /\/sessions\/(.+)$/.exec(API_URL)!
    expect(session).toMatch(/^ci-\w+-\d+$/)
    const me = await fetch(`${API_URL}/v1/me`, { headers: auth })
    expect(me.status).toBe(200)
  })

  it("keeps the worker's writes from every other session, and the reset undoes them", async () => {
    const created = await fetch(`${API_URL}/v1/contacts`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ phone: '+14155550123' }),
    })
    expect(created.status).toBe(201)
    expect(created.headers.get('location')).toMatch(new RegExp(`^${new URL(API_URL).pathname}/v1/contacts/`))
    const other = `${API_URL}-other/v1/contacts?phone=%2B14155550123`
    const root = 'http://127.0.0.1:4010/v1/contacts?phone=%2B14155550123'
    for (const url of [other, root]) expect((await (await fetch(url, { headers: auth })).json()).data).toEqual([])
    await fetch(`${API_URL}/_sandbox/reset`, { method: 'POST' })
    const own = await fetch(`${API_URL}/v1/contacts?phone=%2B14155550123`, { headers: auth })
    expect((await own.json()).data).toEqual([])
  })
})
