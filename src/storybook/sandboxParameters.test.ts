import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { onUnhandled } from '../../test/support/onUnhandled.js'
import { settledWithin } from '../../test/support/settledWithin.js'
import { answer, createSandbox } from '../index.js'
import { sandboxParameters, type SandboxParameters } from './sandboxParameters.js'
import { STORY_NOW } from './storySandbox.js'

const API = 'https://api.call-sandbox.test'
const server = setupServer()
beforeAll(() => server.listen(onUnhandled('error')))
afterAll(() => server.close())

/**
 * What msw-storybook-addon's `mswLoader` does before a story renders: reset, then the story's handlers, groups in
 * order.
 */
function showStory(parameters: SandboxParameters): void {
  server.resetHandlers()
  server.use(...Object.values(parameters.msw.handlers).flat())
}

async function get(path: string, key: string | null = 'sk_sandbox_all', init: RequestInit = {}) {
  const response = await fetch(API + path, {
    ...init,
    headers: { ...(key && { Authorization: `Bearer ${key}` }), ...init.headers },
  })
  return { status: response.status, headers: response.headers, body: await response.json() }
}

describe('sandboxParameters', () => {
  it('answers the default world of seed 1 at STORY_NOW, record for record as createSandbox', async () => {
    showStory(sandboxParameters())
    const sandbox = createSandbox({ now: STORY_NOW })
    const direct = await answer(
      sandbox,
      new Request(`${API}/v1/calls?limit=100`, { headers: { Authorization: 'Bearer sk_sandbox_all' } }),
    )
    const story = await get('/v1/calls?limit=100')
    expect(story.status).toBe(200)
    expect(JSON.stringify(story.body.data)).toBe(JSON.stringify((await direct!.json()).data))
    expect(story.body.meta.timestamp).toBe('2026-11-20T12:00:00.000Z')
  })

  it('gives the empty scenario no records', async () => {
    showStory(sandboxParameters({ scenario: 'empty' }))
    expect((await get('/v1/calls')).body).toMatchObject({ data: [], has_more: false, next_cursor: null })
    expect((await get('/v1/leads')).body.data).toEqual([])
  })

  it('makes the busy scenario a world of thousands of calls', async () => {
    showStory(sandboxParameters({ scenario: 'busy' }))
    // 5,000 calls over 90 days are some 55 a day; the default world has about 3.
    const { body } = await get('/v1/calls?limit=100&since=2026-11-19T12:00:00Z')
    expect(body.data.length).toBeGreaterThan(30)
  })

  it('answers the degraded scenario slowly', async () => {
    showStory(sandboxParameters({ scenario: 'degraded' }))
    const started = performance.now()
    const { status } = await get('/v1/me')
    expect(performance.now() - started).toBeGreaterThanOrEqual(190)
    expect([200, 500, 503]).toContain(status)
  })

  it.each([
    ['unauthorized', {}, '/v1/calls', 401, 'unauthorized'],
    ['forbidden', {}, '/v1/calls', 403, 'insufficient_scope'],
    ['forbidden', { missingScope: 'leads:read' }, '/v1/leads', 403, 'insufficient_scope'],
    ['rate-limited', {}, '/v1/calls', 429, 'rate_limited'],
    ['server-error', {}, '/v1/calls', 500, 'internal_error'],
  ] as const)('in state %s (%o), GET %s answers %i %s', async (state, options, path, status, code) => {
    showStory(sandboxParameters({ state, ...options }))
    const answered = await get(path)
    expect(answered.status).toBe(status)
    expect(answered.body.error.code).toBe(code)
    expect(answered.body.meta.request_id).toMatch(/^req_/)
  })

  it('says which scope is missing, and answers the endpoints that do not need it', async () => {
    showStory(sandboxParameters({ state: 'forbidden', missingScope: 'leads:read' }))
    expect((await get('/v1/leads')).body.error).toMatchObject({ details: { required_scope: 'leads:read' } })
    expect((await get('/v1/calls?limit=1')).status).toBe(200)
    expect((await get('/v1/me')).body.data.scopes).not.toContain('leads:read')
  })

  it('sends Retry-After with the 429 state', async () => {
    showStory(sandboxParameters({ state: 'rate-limited' }))
    expect((await get('/v1/calls')).headers.get('retry-after')).toMatch(/^\d+$/)
  })

  it('holds a loading request until the next story, then ends it as a network error', async () => {
    showStory(sandboxParameters({ state: 'loading' }))
    const pending = fetch(`${API}/v1/calls`, { headers: { Authorization: 'Bearer sk_sandbox_all' } })
    expect(await settledWithin(pending, 300)).toBe('still pending')

    showStory(sandboxParameters())
    await expect(pending).rejects.toThrow(TypeError)
    expect((await get('/v1/calls?limit=1')).status).toBe(200)
  })

  it('tries overrides first and leaves the rest to the sandbox', async () => {
    const parameters = sandboxParameters({
      overrides: [http.get(`${API}/v1/me`, () => HttpResponse.json({ data: { organization_name: 'Override Inc.' } }))],
    })
    showStory(parameters)
    expect((await get('/v1/me')).body.data.organization_name).toBe('Override Inc.')
    expect((await get('/v1/calls?limit=1')).body.data).toHaveLength(1)
  })

  it('puts the world back to its seed for the next story', async () => {
    showStory(sandboxParameters())
    const created = await get('/v1/contacts', 'sk_sandbox_all', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ phone: '+14155550123', name: 'Dana Whitfield' }),
    })
    expect(created.status).toBe(201)
    showStory(sandboxParameters())
    expect((await get(`/v1/contacts/${created.body.data.id}`)).status).toBe(404)
  })

  it('sets the story’s fault rules in its world, again at every showing', async () => {
    const parameters = sandboxParameters({
      scenario: 'empty',
      faults: [
        { path: '/v1/calls', status: 503, times: 2 },
        { path: '/v1/me', error: 'network' },
      ],
    })
    for (let showing = 0; showing < 2; showing++) {
      showStory(parameters)
      expect((await get('/v1/calls')).status).toBe(503)
      expect((await get('/v1/calls')).status).toBe(503)
      expect((await get('/v1/calls')).status).toBe(200)
      await expect(get('/v1/me')).rejects.toThrow(TypeError)
      expect((await get('/v1/me')).status).toBe(200)
    }
  })
})
