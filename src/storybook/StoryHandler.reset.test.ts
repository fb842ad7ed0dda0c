import { http, HttpResponse } from 'msw'
import { setupServer, type SetupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { onUnhandled } from '../../test/support/onUnhandled.js'
import { settledWithin } from '../../test/support/settledWithin.js'
import { StoryHandler } from './StoryHandler.js'

const API = 'https://api.call-sandbox.test'
const HEADERS = { Authorization: 'Bearer sk_sandbox_all' }
const NEXT = http.get(`${API}/next`, () => HttpResponse.text('next'))

/*
 * msw 2 tells every current handler of a reset (`reset()`); msw 3 tells those
 * the reset keeps (`reset()`) and those it drops (`dispose()`). Either way, a
 * story ends with it: one row for each way a handler goes through a reset,
 * each on a server of its own, with no other story's handler to reset the
 * world they share.
 */
describe.each([
  [
    'kept as an initial handler by resetHandlers()',
    (server: SetupServer, story: StoryHandler) => server.resetHandlers(story),
    (server: SetupServer) => server.resetHandlers(),
  ],
  [
    'dropped by resetHandlers() after use()',
    (server: SetupServer, story: StoryHandler) => server.use(story),
    (server: SetupServer) => server.resetHandlers(),
  ],
  [
    'replaced by resetHandlers(next)',
    (server: SetupServer, story: StoryHandler) => server.resetHandlers(story),
    (server: SetupServer) => server.resetHandlers(NEXT),
  ],
])('a StoryHandler %s', (_, show, reset) => {
  const server = setupServer()
  beforeAll(() => server.listen(onUnhandled('error')))
  afterAll(() => server.close())

  it('puts its world back to the seed', async () => {
    const story = new StoryHandler()
    show(server, story)
    const created = await fetch(`${API}/v1/contacts`, {
      method: 'POST',
      headers: { ...HEADERS, 'Content-Type': 'application/json' },
      body: JSON.stringify({ phone: '+14155550123' }),
    })
    expect(created.status).toBe(201)
    reset(server)
    show(server, story)
    expect((await fetch(`${API}/v1/contacts/${(await created.json()).data.id}`, { headers: HEADERS })).status).toBe(404)
  })

  it('ends a held request as a network error', async () => {
    show(server, new StoryHandler({ state: 'loading' }))
    const pending = fetch(`${API}/v1/calls`, { headers: HEADERS })
    expect(await settledWithin(pending, 300)).toBe('still pending')
    reset(server)
    await expect(pending).rejects.toThrow(TypeError)
  })
})
