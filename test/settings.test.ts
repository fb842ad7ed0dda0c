import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startServer } from '../src/server/startServer.js'
import { dataOf, postJson, timed, using } from './support/control.js'
import { tempFolder } from './support/tempFolder.js'
import { inProcess, NOW, transports, type Answer, type Transport } from './support/transports.js'

/*
 * Run-time settings (issue 31, item 2): the latency, error rate and rate
 * limit of the bare root and of each session, given at creation, read and
 * changed through `/_sandbox/settings`, shown in health and in a session's
 * info, and the same in process through `sandbox.settings`. Timings are only
 * ever checked as lower bounds.
 */

const named = transports.map((make) => [make.name === 'inProcess' ? 'in process' : 'over HTTP', make] as const)
const OFF = { latency: null, error_rate: 0, rate_limit: null, changed: [] }

const statuses = async (api: Transport, count: number, root = '') => {
  const seen: number[] = []
  for (let i = 0; i < count; i++) seen.push((await api.request(`${root}/v1/calls?limit=1`)).status)
  return seen
}
const settingsOf = async (api: Transport, root = '') =>
  dataOf(await api.request(`${root}/_sandbox/settings`, { key: null }))
const change = (api: Transport, body: unknown, root = '') => postJson(api, `${root}/_sandbox/settings`, body)
const restore = (api: Transport, root = '') => api.request(`${root}/_sandbox/settings`, { method: 'DELETE', key: null })

describe.each(named)('the settings of the bare root, %s', (_name, make) => {
  let api: Transport
  beforeAll(async () => {
    api = await make({ rateLimit: '5/min' })
  })
  afterAll(() => api.close())
  beforeEach(async () => {
    await restore(api)
    await api.sandbox.reset()
  })

  it('shows what the server started with', async () => {
    expect(await settingsOf(api)).toEqual({ ...OFF, rate_limit: { limit: 5, window_ms: 60_000 } })
  })

  it('a new rate limit applies from the next request, with fresh budgets', async () => {
    expect(await statuses(api, 1)).toEqual([200])
    const changed = dataOf(await change(api, { rate_limit: '2/min' }))
    expect(changed).toEqual({ ...OFF, rate_limit: { limit: 2, window_ms: 60_000 }, changed: ['rate_limit'] })
    const answers: Answer[] = []
    for (let i = 0; i < 3; i++) answers.push(await api.request('/v1/calls?limit=1'))
    expect(answers.map(({ status }) => status)).toEqual([200, 200, 429])
    expect(answers[0]!.headers.get('x-ratelimit-limit')).toBe('2')
    expect(answers[2]!.body.error.code).toBe('rate_limited')
    expect(answers[2]!.headers.get('retry-after')).toMatch(/^\d+$/)
  })

  it('null turns a setting off; the others stay as they are', async () => {
    dataOf(await change(api, { error_rate: 0.5 }))
    const off = dataOf(await change(api, { rate_limit: null }))
    expect(off).toEqual({ ...OFF, error_rate: 0.5, changed: ['error_rate', 'rate_limit'] })
    dataOf(await change(api, { error_rate: null }))
    const answer = await api.request('/v1/calls?limit=1')
    expect(answer.status).toBe(200)
    expect(answer.headers.get('x-ratelimit-limit')).toBeNull()
  })

  it('an error rate of 1 fails every API request with a 500 or 503 in the envelope', async () => {
    dataOf(await change(api, { error_rate: 1, rate_limit: null }))
    const answers: Answer[] = []
    for (let i = 0; i < 6; i++) answers.push(await api.request('/v1/calls?limit=1'))
    for (const answer of answers) {
      expect([500, 503]).toContain(answer.status)
      expect(answer.body.error.code).toMatch(/^(internal_error|service_unavailable)$/)
    }
  })

  it('a latency makes the next answer wait at least that long', async () => {
    dataOf(await change(api, { latency: 150 }))
    expect((await timed(api.request('/v1/me'))).ms).toBeGreaterThanOrEqual(140)
    dataOf(await change(api, { latency: null }))
  })

  it('a reset keeps the changed settings and replays the same failures', async () => {
    dataOf(await change(api, { error_rate: 0.5, rate_limit: null }))
    const first = await statuses(api, 30)
    expect(first).toContain(200)
    expect(first.some((status) => status >= 500)).toBe(true)
    dataOf(await postJson(api, '/_sandbox/reset'))
    expect((await settingsOf(api)).error_rate).toBe(0.5)
    expect(await statuses(api, 30)).toEqual(first)
  })

  it('DELETE goes back to the starting settings', async () => {
    dataOf(await change(api, { latency: '10-20', rate_limit: { limit: 9, window_ms: 1_000 } }))
    expect(dataOf(await restore(api))).toEqual({ ...OFF, rate_limit: { limit: 5, window_ms: 60_000 } })
  })

  it('shows them in health', async () => {
    dataOf(await change(api, { latency: '100-400' }))
    const health = dataOf(await api.request('/_sandbox/health', { key: null }))
    expect(health.settings).toEqual({
      ...OFF,
      latency: { min: 100, max: 400 },
      rate_limit: { limit: 5, window_ms: 60_000 },
      changed: ['latency'],
    })
  })

  it('what GET shows, POST takes back as it is', async () => {
    dataOf(await change(api, { latency: '100-400', error_rate: 0.25 }))
    const { changed: _, ...shown } = await settingsOf(api)
    await restore(api)
    const again = dataOf(await change(api, shown))
    expect(again).toMatchObject(shown)
  })

  it.each([
    ['latency', -1],
    ['latency', 60_001],
    ['latency', 1.5],
    ['latency', '400-100'],
    ['latency', 'fast'],
    ['latency', '1'.repeat(30)],
    ['latency', true],
    ['latency', { min: 1 }],
    ['error_rate', 1.5],
    ['error_rate', -0.1],
    ['error_rate', '0.5'],
    ['rate_limit', '0/min'],
    ['rate_limit', '5/day'],
    ['rate_limit', 60],
    ['rate_limit', { limit: 1e12, window_ms: 1_000 }],
    ['rate_limit', { limit: 5, window_ms: 86_400_001 }],
    ['rate_limit', { limit: 5 }],
    ['speed', 1],
  ])('refuses %s %j with 422 naming the field, and changes nothing', async (field, value) => {
    const answer = await change(api, { error_rate: 0.5, [field]: value })
    expect(answer.status).toBe(422)
    expect(answer.body.error.code).toBe('validation_failed')
    expect(answer.body.error.details).toEqual([expect.objectContaining({ field })])
    expect(answer.body.error.message.length).toBeLessThan(500)
    expect(await settingsOf(api)).toEqual({ ...OFF, rate_limit: { limit: 5, window_ms: 60_000 } })
  })

  it('names a field inside a setting that it does not take by its path', async () => {
    const answer = await change(api, { latency: { min: 1, max: 2, extra: 3 } })
    expect(answer.status).toBe(422)
    expect(answer.body.error.details).toEqual([
      expect.objectContaining({ field: 'latency.extra', code: 'unknown_field' }),
    ])
  })

  it('refuses a body that is no JSON object', async () => {
    const answer = await change(api, '[1]')
    expect(answer.status).toBe(400)
    expect(answer.body.error.code).toBe('invalid_json')
  })
})

describe.each(named)('the settings of a session, %s', (_name, make) => {
  let api: Transport
  beforeAll(async () => {
    api = await make({ latency: 1, rateLimit: '5/min' })
  })
  afterAll(() => api.close())

  it('a session created with settings has them, and the root keeps its own', async () => {
    const created = dataOf(
      await postJson(api, '/_sandbox/sessions', { name: 'tight', rate_limit: '2/min', error_rate: 0, latency: null }),
      201,
    )
    const own = { ...OFF, rate_limit: { limit: 2, window_ms: 60_000 } }
    expect(created.settings).toEqual(own)
    expect(await statuses(api, 3, '/sessions/tight')).toEqual([200, 200, 429])
    expect(await settingsOf(api, '/sessions/tight')).toEqual(own)
    const health = dataOf(await api.request('/sessions/tight/_sandbox/health', { key: null }))
    expect(health.settings).toEqual(own)
    expect(await settingsOf(api)).toEqual({
      ...OFF,
      latency: { min: 1, max: 1 },
      rate_limit: { limit: 5, window_ms: 60_000 },
    })
  })

  it('a session made by its first request inherits the server’s', async () => {
    expect(await statuses(api, 1, '/sessions/first-use')).toEqual([200])
    const listed = dataOf(await api.request('/_sandbox/sessions', { key: null }))
    expect(listed.find(({ name }: { name: string }) => name === 'first-use').settings).toEqual({
      ...OFF,
      latency: { min: 1, max: 1 },
      rate_limit: { limit: 5, window_ms: 60_000 },
    })
  })

  it('changing a session’s settings leaves the root’s and the other sessions’ as they were', async () => {
    dataOf(await change(api, { error_rate: 1 }, '/sessions/flaky'))
    const failing = await statuses(api, 3, '/sessions/flaky')
    expect(failing.every((status) => status >= 500)).toBe(true)
    expect(await statuses(api, 1, '/sessions/steady')).toEqual([200])
    expect((await settingsOf(api)).error_rate).toBe(0)
    const info = dataOf(await api.request('/_sandbox/sessions', { key: null }))
    expect(info.find(({ name }: { name: string }) => name === 'flaky').settings.changed).toEqual(['error_rate'])
  })

  it.each([
    ['error_rate', 2],
    ['latency', 'slow'],
    ['rate_limit', '1000000000000/min'],
  ])('refuses a session with %s %j: 422 naming it, and no session made', async (field, value) => {
    const answer = await postJson(api, '/_sandbox/sessions', { name: 'refused', [field]: value })
    expect(answer.status).toBe(422)
    expect(answer.body.error.details).toEqual([expect.objectContaining({ field })])
    expect(api.sandbox.sessions.has('refused')).toBe(false)
  })
})

describe('settings in process', () => {
  it('sandbox.settings reads, changes and restores them, typed', async () => {
    await using(inProcess, { errorRate: 0.1 }, async (api) => {
      const { settings } = api.sandbox
      expect(settings.current).toEqual({ latency: undefined, errorRate: 0.1, rateLimit: undefined })
      expect(settings.update({ rateLimit: '1/min', errorRate: null })).toEqual({
        latency: undefined,
        errorRate: 0,
        rateLimit: { limit: 1, windowMs: 60_000 },
      })
      expect(await statuses(api, 2)).toEqual([200, 429])
      expect(() => settings.update({ latency: '9-1', errorRate: 0.5 })).toThrow(RangeError)
      expect(settings.current.errorRate).toBe(0)
      expect(() => settings.update({ errorRate: Number.NaN })).toThrow(/errorRate/)
      expect(settings.restore()).toEqual({ latency: undefined, errorRate: 0.1, rateLimit: undefined })
    })
  })

  it('a session’s changed settings come back with its world when it was put away', async () => {
    await using(inProcess, { maxSessions: 1 }, async (api) => {
      const world = await api.sandbox.sessions.open('kept')
      world.settings.update({ rateLimit: '1/min' })
      await api.sandbox.sessions.open('other')
      expect(api.sandbox.sessions.info('kept')!.in_memory).toBe(false)
      expect(api.sandbox.sessions.info('kept')!.settings.rate_limit).toEqual({ limit: 1, window_ms: 60_000 })
      expect(await statuses(api, 2, '/sessions/kept')).toEqual([200, 429])
    })
  })

  it('a reset to another scenario starts from its settings; those changed at run time still win', async () => {
    await using(inProcess, {}, async (api) => {
      api.sandbox.settings.update({ errorRate: 0 })
      await api.sandbox.reset({ scenario: 'degraded' })
      expect(api.sandbox.settings.current).toEqual({
        latency: { min: 200, max: 1_500 },
        errorRate: 0,
        rateLimit: undefined,
      })
      expect(api.sandbox.settings.restore().errorRate).toBe(0.1)
    })
  })

  it('a session created in process takes the same fields as over HTTP', async () => {
    await using(inProcess, {}, async (api) => {
      const info = await api.sandbox.sessions.create('typed', {
        latency: '5-10',
        rate_limit: { limit: 3, window_ms: 1_000 },
      })
      expect(info.settings).toMatchObject({ latency: { min: 5, max: 10 }, rate_limit: { limit: 3, window_ms: 1_000 } })
    })
  })
})

describe('settings in a data file (--data)', () => {
  it('keeps a session’s creation settings and scenario over a restart, not the changes made at run time', async () => {
    const data = join(tempFolder('settings'), 'sandbox.log')
    const first = await startServer({ port: 0, quiet: true, now: NOW, data })
    const post = (url: string, body: unknown) =>
      fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
    try {
      expect((await post(`${first.url}/_sandbox/sessions`, { name: 'slow', latency: '5-10' })).status).toBe(201)
      expect((await post(`${first.url}/sessions/slow/_sandbox/settings`, { error_rate: 0.5 })).status).toBe(200)
      expect((await post(`${first.url}/_sandbox/sessions`, { name: 'swapped' })).status).toBe(201)
      expect((await post(`${first.url}/sessions/swapped/_sandbox/reset`, { scenario: 'degraded' })).status).toBe(200)
    } finally {
      await first.close()
    }
    const second = await startServer({ port: 0, quiet: true, now: NOW, data })
    try {
      // Listed before its world is brought back: the settings of the scenario its last reset seeded.
      const listed = await (await fetch(`${second.url}/_sandbox/sessions`)).json()
      expect(listed.data.find(({ name }: { name: string }) => name === 'swapped').settings).toEqual({
        latency: { min: 200, max: 1_500 },
        error_rate: 0.1,
        rate_limit: null,
        changed: [],
      })
      const shown = await (await fetch(`${second.url}/sessions/slow/_sandbox/settings`)).json()
      expect(shown.data).toEqual({ latency: { min: 5, max: 10 }, error_rate: 0, rate_limit: null, changed: [] })
    } finally {
      await second.close()
    }
  })
})
