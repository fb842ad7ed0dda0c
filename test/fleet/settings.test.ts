/**
 * Run-time settings in a fleet (`--store redis://`): what a session was created with is kept in the store beside its
 * options, and a change made at run time (`POST`/`DELETE /_sandbox/settings`) in the store's fault rules hash, so
 * every server applies both; a rate limit's budgets are each server's.
 */
import { describe, expect, it } from 'vitest'
import { control, get, server, storeOf, TOPOLOGIES } from './fleet.js'

describe('settings of a session over one Redis node', () => {
  const store = storeOf(TOPOLOGIES[0]!)
  const serve = () => server(store.url, { rateLimit: '50/min' })
  const statuses = async (url: string, count: number) => {
    const seen: number[] = []
    for (let i = 0; i < count; i++) seen.push((await get(url, '/v1/calls?limit=1')).status)
    return seen
  }

  it('a session’s creation settings reach every server', async () => {
    const [a, b] = [await serve(), await serve()]
    const created = await control(a.url, '/_sandbox/sessions', { name: 'tight', rate_limit: '2/min', error_rate: 0 })
    expect(created.status).toBe(201)
    const tight = { latency: null, error_rate: 0, rate_limit: { limit: 2, window_ms: 60_000 }, changed: [] }
    expect((await get(b.url, '/sessions/tight/_sandbox/settings')).body.data).toEqual(tight)
    expect(await statuses(`${b.url}/sessions/tight`, 3)).toEqual([200, 200, 429])
    // Each server counts its own budgets.
    expect(await statuses(`${a.url}/sessions/tight`, 1)).toEqual([200])

    // A session made by its first request takes the server's flags, on each server.
    expect((await get(b.url, '/sessions/plain/_sandbox/settings')).body.data.rate_limit).toEqual({
      limit: 50,
      window_ms: 60_000,
    })
  })

  it('a run-time change and its restore reach every server, at the bare root and in a session', async () => {
    const [a, b] = [await serve(), await serve()]
    expect((await control(a.url, '/_sandbox/sessions', { name: 'tight', rate_limit: '2/min' })).status).toBe(201)
    for (const [root, started] of [
      ['', { limit: 50, window_ms: 60_000 }],
      ['/sessions/tight', { limit: 2, window_ms: 60_000 }],
    ] as const) {
      const where = root || 'the bare root'
      // B holds the world, under the starting settings, when A changes them.
      expect(await statuses(`${b.url}${root}`, 1), where).toEqual([200])
      const change = { rate_limit: '1/min', error_rate: 0, latency: 5 }
      const changed = await control(a.url, `${root}/_sandbox/settings`, change)
      const settings = { latency: { min: 5, max: 5 }, error_rate: 0, rate_limit: { limit: 1, window_ms: 60_000 } }
      expect(changed.body.data, where).toEqual({ ...settings, changed: ['latency', 'error_rate', 'rate_limit'] })
      // B's next API request meets it: a new limit, so a fresh budget of one, counted by B alone.
      expect(await statuses(`${b.url}${root}`, 2), where).toEqual([200, 429])
      // A reset keeps the changed settings, on every server.
      expect((await control(a.url, `${root}/_sandbox/reset`, {})).status).toBe(200)
      const health = (await get(b.url, `${root}/_sandbox/health`)).body.data
      expect(health.settings, where).toEqual({ ...settings, changed: ['latency', 'error_rate', 'rate_limit'] })
      const later = await serve()
      expect((await get(later.url, `${root}/_sandbox/settings`)).body.data, where).toEqual(changed.body.data)

      const restored = await fetch(`${b.url}${root}/_sandbox/settings`, { method: 'DELETE' })
      expect(restored.status, where).toBe(200)
      const start = { latency: null, error_rate: 0, rate_limit: started, changed: [] }
      expect((await get(a.url, `${root}/_sandbox/settings`)).body.data, where).toEqual(start)
      expect((await get(later.url, `${root}/_sandbox/health`)).body.data.settings, where).toEqual(start)
      // Back to the starting limit: a fresh budget on A, which had spent none under it.
      expect(await statuses(`${a.url}${root}`, 1), where).toEqual([200])
    }
  })

  it('a server started later applies the settings of the scenario a session’s last reset seeded', async () => {
    const a = await serve()
    expect((await control(a.url, '/_sandbox/sessions', { name: 'swapped' })).status).toBe(201)
    expect((await control(a.url, '/sessions/swapped/_sandbox/reset', { scenario: 'degraded' })).status).toBe(200)
    const later = await serve()
    const degraded = { latency: { min: 200, max: 1_500 }, error_rate: 0.1 }
    expect((await get(later.url, '/sessions/swapped/_sandbox/settings')).body.data).toMatchObject(degraded)
    const listed = (await get(later.url, '/_sandbox/sessions')).body.data
    expect(listed.find(({ name }: { name: string }) => name === 'swapped').settings).toMatchObject(degraded)
  })
})
