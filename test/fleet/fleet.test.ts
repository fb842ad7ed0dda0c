/**
 * Servers given the same Redis store are one sandbox (`--store redis://`):
 * any server answers any session with every acknowledged write, writes
 * racing on one session lose and fork nothing, and a store that goes away
 * is a 503, never stale data, until it is back.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { type RunningServer, type ServerOptions, startServer } from '../../src/server/startServer.js'
import { killChildren, listening, runCli } from '../support/cli.js'
import { pagesOf } from '../support/proxies.js'
import { type RedisServer, startRedis } from '../support/redisServer.js'
import { NOW } from '../support/transports.js'

const AUTH = { Authorization: 'Bearer sk_sandbox_all' }
const JSON_AUTH = { ...AUTH, 'Content-Type': 'application/json' }

let redis: RedisServer
const running: RunningServer[] = []

beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis.stop()
})
afterEach(async () => {
  killChildren()
  await Promise.all(running.splice(0).map((server) => server.close()))
  // Each test starts from an empty store.
  await redis.kill()
  await redis.restart()
  const { createClient } = await import('@redis/client')
  const client = createClient({ url: redis.url })
  await client.connect()
  await client.flushAll()
  await client.close()
})

async function server(options: ServerOptions = {}): Promise<RunningServer> {
  const started = await startServer({ port: 0, quiet: true, now: NOW, store: redis.url, ...options })
  running.push(started)
  return started
}

async function createContact(url: string, phone: string) {
  const response = await fetch(`${url}/v1/contacts`, {
    method: 'POST',
    headers: JSON_AUTH,
    body: JSON.stringify({ phone }),
  })
  return { status: response.status, body: await response.json() }
}

async function get(url: string, path: string) {
  const response = await fetch(`${url}${path}`, { headers: AUTH })
  return { status: response.status, body: await response.json() }
}

async function control(url: string, path: string, body: unknown) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: await response.json() }
}

/** Every contact of the key's organization, newest first, walking the cursors. */
async function allContacts(url: string, root = ''): Promise<Array<{ id: string; phone: string }>> {
  return (await pagesOf(url, `${root}/v1/contacts?limit=100`)).flatMap((page) => page.body.data)
}

describe('servers over one Redis store', () => {
  it('answers any session from any server: a write answered by one is in the very next answer of the other', async () => {
    const [a, b] = [await server(), await server()]
    for (const root of ['', '/sessions/ci-1']) {
      const { body: created } = await createContact(`${a.url}${root}`, '+14155550101')
      const read = await get(b.url, `${root}/v1/contacts/${created.data.id}`)
      expect(read.status, root || 'the bare root').toBe(200)
      expect(read.body.data).toEqual(created.data)
    }
    // The session made on one server by its first write is served by the other, and stays its own world.
    expect((await get(b.url, '/v1/contacts?limit=1')).body.data[0].phone).toBe('+14155550101')
    expect((await allContacts(b.url, '/sessions/ci-1')).filter(({ phone }) => phone === '+14155550101')).toHaveLength(1)
  })

  it('loses and forks nothing when two servers write to one session at once: unique ids, one order of writes', async () => {
    const [a, b] = [await server(), await server()]
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        createContact(i % 2 === 0 ? a.url : b.url, `+1415556${String(i).padStart(4, '0')}`),
      ),
    )
    expect(answers.map(({ status }) => status)).toEqual(Array(40).fill(201))
    const ids = answers.map(({ body }) => body.data.id)
    expect(new Set(ids).size).toBe(40)
    const [fromA, fromB] = [await allContacts(a.url), await allContacts(b.url)]
    expect(fromA).toEqual(fromB)
    expect(fromA.map(({ id }) => id)).toEqual(expect.arrayContaining(ids))
    // One order: as one server would have made them, write 1 to 40, on both.
    expect(a.sandbox.writeCount).toBe(40)
    expect(b.sandbox.writeCount).toBe(40)
    // The same phone from both at once: one 201, one 409 naming it.
    const [first, second] = await Promise.all([
      createContact(a.url, '+14155550999'),
      createContact(b.url, '+14155550999'),
    ])
    expect([first.status, second.status].sort()).toEqual([201, 409])
  })

  it('holds a reset, a clock move and a scenario swap on every server', async () => {
    const [a, b] = [await server(), await server()]
    await createContact(a.url, '+14155550102')
    expect((await control(a.url, '/_sandbox/clock', { advance_seconds: 3_600 })).status).toBe(200)
    expect((await get(b.url, '/_sandbox/clock')).body.data.now).toBe('2026-11-20T13:00:00.000Z')
    expect((await control(b.url, '/_sandbox/reset', { scenario: 'empty' })).status).toBe(200)
    const health = await get(a.url, '/_sandbox/health')
    expect(health.body.data).toMatchObject({ scenario: 'empty', clock: { now: NOW }, records: { calls: 0 } })
    expect(health.body.data.store).toEqual({ kind: 'redis', state: 'ok', error: null })
    expect(await allContacts(a.url)).toEqual([])
  })

  it('serves, from a server started later, the sessions and writes of the servers before', async () => {
    const a = await server()
    expect((await control(a.url, '/_sandbox/sessions', { name: 'seven', seed: 7 })).status).toBe(201)
    const { body: made } = await createContact(`${a.url}/sessions/seven`, '+14155550103')
    const later = await server()
    expect((await get(later.url, `/sessions/seven/v1/contacts/${made.data.id}`)).body.data).toEqual(made.data)
    expect((await get(later.url, '/sessions/seven/_sandbox/health')).body.data.seed).toBe(7)
    // A name another server holds is taken on this one too.
    expect((await control(later.url, '/_sandbox/sessions', { name: 'seven' })).status).toBe(409)
  })

  it('loses no acknowledged write when a server is killed with SIGKILL during writes', async () => {
    const cli = runCli(['--port', '0', '--now', NOW, '--store', redis.url, '--quiet'])
    const { url } = await listening(cli)
    const acknowledged: string[] = []
    const writers = [0, 1, 2, 3].map(async (writer) => {
      for (let i = 0; ; i++) {
        const answer = await createContact(url, `+1416${writer}${String(i).padStart(6, '0')}`).catch(() => undefined)
        if (!answer) return
        if (answer.status === 201) acknowledged.push(answer.body.data.id)
      }
    })
    await vi.waitFor(() => expect(acknowledged.length).toBeGreaterThan(10), { timeout: 10_000 })
    cli.child.kill('SIGKILL')
    await Promise.all(writers)
    expect(acknowledged.length).toBeGreaterThan(10)
    const survivor = await server()
    expect((await allContacts(survivor.url)).map(({ id }) => id)).toEqual(expect.arrayContaining(acknowledged))
  })

  it('answers 503 storage_unavailable while Redis is gone, never stale data, and recovers by itself', async () => {
    const [a, b] = [await server(), await server()]
    const before = await createContact(a.url, '+14155550104')
    expect(before.status).toBe(201)
    await redis.kill()
    const write = await createContact(a.url, '+14155550105')
    expect(write.status).toBe(503)
    expect(write.body.error.code).toBe('storage_unavailable')
    const read = await get(b.url, '/v1/contacts?limit=1')
    expect(read.status).toBe(503)
    expect(read.body.error.code).toBe('storage_unavailable')
    expect((await get(a.url, '/_sandbox/health')).status).toBe(503)
    // Alive, not ready: a probe takes the server out until Redis is back.
    expect((await get(a.url, '/_sandbox/live')).status).toBe(200)
    expect((await get(a.url, '/_sandbox/ready')).body.error.code).toBe('storage_unavailable')
    expect(await (await fetch(`${a.url}/_sandbox/metrics`)).text()).toMatch(/^call_sandbox_store_errors_total [1-9]/m)

    await redis.restart()
    // The client reconnects on its own; the first answers after that are whole again.
    await vi.waitFor(
      async () => {
        const after = await createContact(b.url, '+14155550105')
        expect(after.status).toBe(201)
      },
      { timeout: 10_000, interval: 100 },
    )
    const phones = (await allContacts(a.url)).map(({ phone }) => phone)
    expect(phones).toEqual(expect.arrayContaining(['+14155550104', '+14155550105']))
    expect(phones.filter((phone) => phone === '+14155550105')).toHaveLength(1)
  })

  it('keeps every acknowledged write across a Redis restart under load', async () => {
    const [a, b] = [await server(), await server()]
    const acknowledged: string[] = []
    let writing = true
    let refused = 0
    const writers = [a, b].map(async (target, writer) => {
      for (let i = 0; writing; i++) {
        const answer = await createContact(target.url, `+1417${writer}${String(i).padStart(6, '0')}`)
        if (answer.status === 201) acknowledged.push(answer.body.data.id)
        else {
          expect(answer.body.error.code).toBe('storage_unavailable')
          refused++
        }
      }
    })
    const moreAcknowledged = async (than: number) =>
      vi.waitFor(() => expect(acknowledged.length).toBeGreaterThan(than), { timeout: 10_000 })
    await moreAcknowledged(5)
    await redis.kill()
    await vi.waitFor(() => expect(refused).toBeGreaterThan(0), { timeout: 10_000 })
    await redis.restart()
    await moreAcknowledged(acknowledged.length + 5)
    writing = false
    await Promise.all(writers)
    expect(acknowledged.length).toBeGreaterThan(10)
    const later = await server()
    expect((await allContacts(later.url)).map(({ id }) => id)).toEqual(expect.arrayContaining(acknowledged))
  })

  it('refuses to join a store that holds another world', async () => {
    await server()
    const error = await startServer({ port: 0, quiet: true, now: NOW, seed: 2, store: redis.url }).catch((e) => e)
    expect(error.message).toMatch(/holds another world/)
  })
})

describe('what servers over one Redis store share besides the records', () => {
  it('shows the same request journal and usage report from every server, and a reset empties both on all', async () => {
    const [a, b] = [await server(), await server()]
    await get(a.url, '/v1/calls?limit=2')
    await get(b.url, '/v1/contacts?limit=1')
    await createContact(a.url, '+14155550106')
    // The journal is written as the answer goes: the last entry lands a moment after the client read the answer.
    await vi.waitFor(async () => expect((await get(b.url, '/_sandbox/requests')).body.data).toHaveLength(3))
    const [journalA, journalB] = [await get(a.url, '/_sandbox/requests'), await get(b.url, '/_sandbox/requests')]
    expect(journalA.body.data.map(({ path }: { path: string }) => path)).toEqual([
      '/v1/contacts',
      '/v1/contacts',
      '/v1/calls',
    ])
    expect(journalB.body.data).toEqual(journalA.body.data)
    // Counted from every server, with a limit or a filter.
    expect((await get(b.url, '/_sandbox/requests?limit=1')).body).toMatchObject({
      count: 3,
      data: [journalA.body.data[0]],
    })
    expect((await get(a.url, '/_sandbox/requests?method=GET&limit=1')).body.count).toBe(2)
    const [usageA, usageB] = [await get(a.url, '/_sandbox/usage'), await get(b.url, '/_sandbox/usage')]
    expect(usageA.body.data).toEqual(usageB.body.data)
    expect(usageA.body.data[0]).toMatchObject({ key: 'sk_sandbox_all', requests: 3 })
    await control(b.url, '/_sandbox/reset', {})
    expect((await get(a.url, '/_sandbox/requests')).body.data).toEqual([])
    expect((await get(a.url, '/_sandbox/usage')).body.data).toEqual([])
  })

  it("keeps the first KiB of a successful answer's body in the shared journal, and whole what was sent", async () => {
    const [a, b] = [await server(), await server()]
    const page = await fetch(`${a.url}/v1/calls?limit=20`, { headers: AUTH })
    const pageText = await page.text()
    expect(pageText.length).toBeGreaterThan(2_048)
    const sent = JSON.stringify({ phone: 'nope', notes: 'n'.repeat(3_000) })
    const refused = await fetch(`${a.url}/v1/contacts`, { method: 'POST', headers: JSON_AUTH, body: sent })
    expect(refused.status).toBe(422)
    const refusal = await refused.text()
    // The journal is written as the answer goes: the last entry lands a moment after the client read the answer.
    await vi.waitFor(async () => expect((await get(b.url, '/_sandbox/requests')).body.data).toHaveLength(2))
    const [refusedEntry, pageEntry] = (await get(b.url, '/_sandbox/requests')).body.data
    expect(pageEntry.response).toMatchObject({ body: pageText.slice(0, 1_024), body_truncated: true })
    expect(refusedEntry.request).toMatchObject({ body: sent, body_truncated: false })
    expect(refusedEntry.response).toMatchObject({ body: refusal, body_truncated: false })
  })

  it('keeps a credential sent in the query by its last 4 in the shared journal, as in memory', async () => {
    const [a, b] = [await server(), await server()]
    const token = 'sk_live_9TqwZp4RkVx7Lm2Nwxyz'
    expect((await get(a.url, `/v1/calls?access_token=${token}&status=completed`)).status).toBe(400)
    const query = { access_token: '…wxyz', status: 'completed' }
    await vi.waitFor(async () => expect((await get(b.url, '/_sandbox/requests')).body.data).toMatchObject([{ query }]))
    expect(JSON.stringify((await get(b.url, '/_sandbox/requests')).body)).not.toContain(token.slice(-5))
  })

  it("journals a proxied request for the whole fleet, with the contract's verdict", async () => {
    const upstream = await startServer({ port: 0, quiet: true, now: NOW })
    running.push(upstream)
    const [a, b] = [await server({ proxy: { upstream: upstream.url } }), await server()]
    const proxied = await get(a.url, '/v1/calls?limit=1')
    expect(proxied.status).toBe(200)
    // The journal is written as the answer goes: the entry lands a moment after the client read the answer.
    await vi.waitFor(async () => expect((await get(b.url, '/_sandbox/requests')).body.data).toHaveLength(1))
    const journal = (await get(b.url, '/_sandbox/requests')).body.data
    expect(journal[0]).toMatchObject({
      path: '/v1/calls',
      status: 200,
      contract: { violation_count: 0, upstream_request_id: expect.stringMatching(/^req_/) },
    })
  })

  it('rings a live call once per arrival, however many servers hold the session', async () => {
    const interval = 100
    const [a, b] = [await server({ live: interval }), await server({ live: interval })]
    const started = performance.now()
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    const elapsed = performance.now() - started
    const [callsA, callsB] = [await get(a.url, '/v1/calls?limit=100'), await get(b.url, '/v1/calls?limit=100')]
    expect(callsA.body.data).toEqual(callsB.body.data)
    // Each arrival moves the stopped clock on by the interval: arrivals = clock moved / interval.
    const arrivals = (Date.parse((await get(a.url, '/_sandbox/clock')).body.data.now) - Date.parse(NOW)) / interval
    expect(arrivals).toBeGreaterThan(3)
    // One timer's worth at most (two servers each ringing would make twice as many).
    expect(arrivals).toBeLessThanOrEqual(Math.ceil(elapsed / interval) + 3)
  })

  it('keeps no more worlds in memory than --max-sessions, and loses none of what was put away', async () => {
    const [a, b] = [await server({ maxSessions: 1 }), await server({ maxSessions: 1 })]
    const made: Record<string, string> = {}
    for (const name of ['s1', 's2', 's3', 's1', 's2', 's3']) {
      const { body: answer } = await createContact(
        `${a.url}/sessions/${name}`,
        `+1415555${name.slice(1)}${Object.keys(made).length}00`,
      )
      made[answer.data.id] = name
    }
    const inMemory = (await get(a.url, '/_sandbox/sessions')).body.data.filter(
      ({ in_memory }: { in_memory: boolean }) => in_memory,
    )
    expect(inMemory.length).toBeLessThanOrEqual(2) // the default session and one more
    for (const [id, name] of Object.entries(made)) {
      expect((await get(b.url, `/sessions/${name}/v1/contacts/${id}`)).status, `${name} ${id}`).toBe(200)
      expect((await get(a.url, `/sessions/${name}/v1/contacts/${id}`)).status, `${name} ${id}`).toBe(200)
    }
  })
})
