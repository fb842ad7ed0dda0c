/**
 * Run-time settings in a fleet (`--store redis://`): what a session was created with is kept in the store beside its
 * options, so every server applies it; a change made at run time (`POST /_sandbox/settings`) is the server's own, and
 * a rate limit's budgets are each server's.
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

  it('a session’s creation settings reach every server; a run-time change stays on the server that took it', async () => {
    const [a, b] = [await serve(), await serve()]
    const created = await control(a.url, '/_sandbox/sessions', { name: 'tight', rate_limit: '2/min', error_rate: 0 })
    expect(created.status).toBe(201)
    const tight = { latency: null, error_rate: 0, rate_limit: { limit: 2, window_ms: 60_000 }, changed: [] }
    expect((await get(b.url, '/sessions/tight/_sandbox/settings')).body.data).toEqual(tight)
    expect(await statuses(`${b.url}/sessions/tight`, 3)).toEqual([200, 200, 429])
    // Each server counts its own budgets.
    expect(await statuses(`${a.url}/sessions/tight`, 1)).toEqual([200])

    const changed = await control(a.url, '/sessions/tight/_sandbox/settings', { rate_limit: null })
    expect(changed.body.data).toMatchObject({ rate_limit: null, changed: ['rate_limit'] })
    expect((await get(b.url, '/sessions/tight/_sandbox/settings')).body.data).toEqual(tight)
    // A session made by its first request takes the server's flags, on each server.
    expect((await get(b.url, '/sessions/plain/_sandbox/settings')).body.data.rate_limit).toEqual({
      limit: 50,
      window_ms: 60_000,
    })
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
