import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { type RunningServer, type ServerOptions, startServer } from '../src/server/startServer.js'
import { defaultOrganizations } from '../src/seed/fixtures.js'
import { dataOf, postJson, using } from './support/control.js'
import { tempFolder } from './support/tempFolder.js'
import { inProcess, NOW, overHttp } from './support/transports.js'

/*
 * What a server keeps in memory is bounded, whatever its clients send: the
 * journals of all sessions together (--journal-bytes), the sessions in all
 * (--session-limit) and in time (--session-ttl). A session put away keeps
 * its journal and usage report.
 */

/** Organizations without calls: a world seeds in a few milliseconds, so that a test can make hundreds of sessions. */
const SMALL = defaultOrganizations.map((organization) => ({ ...organization, calls: 0 }))
const MiB = 1024 * 1024
const AUTH = { Authorization: 'Bearer sk_sandbox_all' }

const running: RunningServer[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()))
})

async function start(options: ServerOptions = {}): Promise<RunningServer> {
  const server = await startServer({ port: 0, quiet: true, now: NOW, organizations: SMALL, ...options })
  running.push(server)
  return server
}

/** Sends `count` requests, `at` a time, each to the path and with the headers `requestOf` gives; their statuses. */
async function flood(
  server: RunningServer,
  count: number,
  requestOf: (i: number) => { path: string; headers?: Record<string, string> },
  at = 8,
): Promise<Map<number, number>> {
  const statuses = new Map<number, number>()
  let next = 0
  await Promise.all(
    Array.from({ length: at }, async () => {
      while (next < count) {
        const { path, headers } = requestOf(next++)
        const response = await fetch(server.url + path, { headers })
        await response.arrayBuffer()
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
      }
    }),
  )
  return statuses
}

async function journalOf(server: RunningServer, root: string, query = ''): Promise<any[]> {
  const response = await fetch(`${server.url}${root}/_sandbox/requests${query}`)
  expect(response.status).toBe(200)
  return (await response.json()).data
}

describe('the journals of all sessions together, --journal-bytes', () => {
  it('keeps a flood of 4,000 requests with 60 KiB headers over 400 session names within the bound, and still answers', {
    timeout: 120_000,
  }, async () => {
    const server = await start({ journalBytes: '2MiB', maxSessions: 20 })
    const pad = 'x'.repeat(60 * 1024)
    // Ten requests a name in a row: each world is seeded once, not brought back at every request.
    const statuses = await flood(server, 4_000, (i) => ({
      path: `/sessions/flood-${Math.floor(i / 10)}/v1/me`,
      headers: { 'X-Pad': `${i}-${pad}` },
    }))
    expect(Object.fromEntries(statuses)).toEqual({ 401: 4_000 })

    const { budget } = server.sandbox.journal
    expect(budget.bytes).toBeLessThanOrEqual(2 * MiB)
    expect(budget.bytes).toBeGreaterThan(MiB)
    // Each header is kept cut, with what it was; the oldest entries went, the newest of each session stayed.
    const [newest] = await journalOf(server, '/sessions/flood-399', '?limit=1')
    expect(newest.request.headers['x-pad']).toMatch(/^3999-x{1019}… \(cut: 61445 characters in all\)$/)
    expect((await journalOf(server, '/sessions/flood-0')).length).toBeLessThan(10)
    expect(server.sandbox.sessions.size).toBe(400)
    expect(server.sandbox.sessions.list().filter(({ in_memory }) => in_memory).length).toBeLessThanOrEqual(1 + 20)

    const alive = await fetch(`${server.url}/v1/me`, { headers: AUTH })
    expect(alive.status).toBe(200)
    const metrics = await (await fetch(`${server.url}/_sandbox/metrics`)).text()
    const journalBytes = Number(/^call_sandbox_journal_bytes (\d+)$/m.exec(metrics)?.[1])
    expect(journalBytes).toBeLessThanOrEqual(2 * MiB)
  })

  it("spends a flood's own entries first: a quiet session keeps every one of its own", async () => {
    const server = await start({ journalBytes: '1MiB' })
    for (let i = 0; i < 3; i++) await (await fetch(`${server.url}/sessions/quiet/v1/calls?limit=${i + 1}`)).text()
    // Sixteen headers of a kilobyte each: about 20 KB an entry, 5 MB in all, five times the bound.
    const headers = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`X-Pad-${i}`, 'p'.repeat(1_000)]))
    await flood(server, 250, () => ({ path: '/sessions/loud/v1/me', headers }))

    expect(server.sandbox.journal.budget.bytes).toBeLessThanOrEqual(MiB)
    const quiet = await journalOf(server, '/sessions/quiet')
    expect(quiet.map(({ query }) => query.limit)).toEqual(['3', '2', '1'])
    const loud = await journalOf(server, '/sessions/loud')
    expect(loud.length).toBeGreaterThan(10)
    expect(loud.length).toBeLessThan(250)
  })
})

describe('a session put away', () => {
  it('comes back with its journal and usage report, not empty', async () => {
    await using(inProcess, { maxSessions: 1 }, async (api) => {
      await api.request('/sessions/a/v1/calls?limit=2')
      await api.request('/sessions/a/v1/calls/nope')
      await api.request('/sessions/a/v1/me', { key: 'sk_sandbox_calls' })
      const journal = dataOf(await api.request('/sessions/a/_sandbox/requests', { key: null }))
      const usage = dataOf(await api.request('/sessions/a/_sandbox/usage', { key: null }))
      expect(journal).toHaveLength(3)

      // Two other sessions in turn: a, which only read, is put away, not forgotten.
      await api.request('/sessions/b/v1/me')
      await api.request('/sessions/c/v1/me')
      expect(api.sandbox.sessions.info('a')).toMatchObject({ in_memory: false, requests: 5 })

      expect(dataOf(await api.request('/sessions/a/_sandbox/requests', { key: null }))).toEqual(journal)
      expect(dataOf(await api.request('/sessions/a/_sandbox/usage', { key: null }))).toEqual(usage)
    })
  })

  it('is forgotten when nothing but its seed is left of it, and comes back the same from it', async () => {
    await using(inProcess, { maxSessions: 2 }, async (api) => {
      // The control plane's reads are not journaled: nothing of these sessions is worth keeping.
      for (let i = 0; i < 10; i++) expect((await api.request(`/sessions/look-${i}/_sandbox/health`)).status).toBe(200)
      expect(api.sandbox.sessions.size).toBeLessThanOrEqual(2)
      expect((await api.request('/sessions/look-0/v1/calls?limit=5')).body.data).toEqual(
        (await api.request('/v1/calls?limit=5')).body.data,
      )
    })
  })
})

describe('sessions bounded in number, --session-limit', () => {
  it('answers a new name past the limit with 503 session_limit_reached and Retry-After, makes no session, and serves those it keeps', async () => {
    const server = await start({ sessionLimit: 2 })
    for (const name of ['one', 'two']) expect((await fetch(`${server.url}/sessions/${name}/v1/me`)).status).toBe(401)

    const refused = await fetch(`${server.url}/sessions/three/v1/me`, { headers: AUTH })
    expect(refused.status).toBe(503)
    const body = await refused.json()
    expect(body.error).toMatchObject({
      type: 'api_error',
      code: 'session_limit_reached',
      details: { session: 'three' },
    })
    expect(body.error.message).toMatch(/at most 2 sessions .*DELETE \/_sandbox\/sessions\/\{name\}.*retry in/)
    expect(refused.headers.get('x-request-id')).toBe(body.meta.request_id)
    // The least recently used session expires in a day (the default TTL): then there is room again.
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(86_000)
    const created = await fetch(`${server.url}/_sandbox/sessions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'four' }),
    })
    expect(created.status).toBe(503)
    expect((await created.json()).error.code).toBe('session_limit_reached')
    expect(server.sandbox.sessions.list().map(({ name }) => name)).toEqual(['default', 'one', 'two'])

    expect((await fetch(`${server.url}/sessions/one/v1/me`, { headers: AUTH })).status).toBe(200)
    expect((await fetch(`${server.url}/v1/me`, { headers: AUTH })).status).toBe(200)
    expect((await fetch(`${server.url}/_sandbox/sessions/two`, { method: 'DELETE' })).status).toBe(200)
    expect((await fetch(`${server.url}/sessions/three/v1/me`, { headers: AUTH })).status).toBe(200)
  })

  it('without a TTL, says that a place frees only when a session is ended', async () => {
    await using(inProcess, { sessionLimit: 1, sessionTtl: 'off' }, async (api) => {
      await api.request('/sessions/one/v1/me')
      const refused = await api.request('/sessions/two/v1/me')
      expect(refused.status).toBe(503)
      expect(refused.body.error.code).toBe('session_limit_reached')
      expect(refused.body.error.message).toMatch(/at most 1 session .*a place frees only when a session is ended\.$/)
      expect(refused.headers.get('retry-after')).toBe('60')
    })
  })
})

describe('sessions forgotten when unused, --session-ttl', () => {
  it('forgets a session unused for the TTL, its world, writes, journal and usage; not one answering a request, never the default', async () => {
    await using(inProcess, { sessionTtl: '1h' }, async (api) => {
      const { sessions } = api.sandbox
      const phone = encodeURIComponent('+14155550170')
      await api.request('/sessions/old/v1/contacts', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ phone: '+14155550170' }),
      })
      await api.request('/v1/me')
      const { last_used_at, expires_at } = sessions.info('old')!
      expect(Date.parse(expires_at!) - Date.parse(last_used_at)).toBe(3_600_000)
      expect(sessions.info('default')?.expires_at).toBeNull()

      expect(sessions.expire(Date.now() + 30 * 60_000)).toEqual([])
      const slow = api.request('/sessions/slow/v1/me', { headers: { Prefer: 'delay=300' } })
      await vi.waitFor(() => expect(sessions.info('slow')).toBeDefined())
      expect(sessions.expire(Date.now() + 2 * 3_600_000)).toEqual(['old'])
      expect((await slow).status).toBe(200)
      expect(sessions.list().map(({ name }) => name)).toEqual(['default', 'slow'])
      expect(api.sandbox.journal.size).toBe(1)

      // Its name makes a fresh session: seeded again, with an empty journal and usage report.
      expect((await api.request(`/sessions/old/v1/contacts?phone=${phone}`)).body.data).toEqual([])
      const journal = dataOf(await api.request('/sessions/old/_sandbox/requests', { key: null }))
      expect(journal.map(({ method }: { method: string }) => method)).toEqual(['GET'])
      const usage = dataOf(await api.request('/sessions/old/_sandbox/usage', { key: null }))
      expect(usage.map(({ requests }: { requests: number }) => requests)).toEqual([1])
      expect(api.sandbox.journal.budget.bytes).toBe(
        api.sandbox.journal.bytes +
          (await sessions.open('old')).journal.bytes +
          (await sessions.open('slow')).journal.bytes,
      )
    })
  })

  it('forgets them by itself, and a data file forgets them too: a restart does not bring them back', async () => {
    const file = join(tempFolder('ttl'), 'data.log')
    const server = await start({ data: file, sessionTtl: 300 })
    const made = await fetch(`${server.url}/sessions/brief/v1/contacts`, {
      method: 'POST',
      headers: { ...AUTH, 'Content-Type': 'application/json' },
      body: JSON.stringify({ phone: '+14155550171' }),
    })
    expect(made.status).toBe(201)
    await vi.waitFor(() => expect(server.sandbox.sessions.has('brief')).toBe(false), { timeout: 15_000, interval: 50 })
    await server.close()
    running.splice(0)

    const again = await start({ data: file })
    expect(again.sandbox.sessions.list().map(({ name }) => name)).toEqual(['default'])
  })

  it('keeps sessions with --session-ttl off until they are ended', async () => {
    await using(overHttp, { sessionTtl: 'off' }, async (api) => {
      await api.request('/sessions/kept/v1/me')
      expect(api.sandbox.sessions.info('kept')?.expires_at).toBeNull()
      expect(api.sandbox.sessions.expire(Date.now() + 400 * 24 * 3_600_000)).toEqual([])
      await postJson(api, '/sessions/kept/_sandbox/reset')
      expect(api.sandbox.sessions.has('kept')).toBe(true)
    })
  })
})
