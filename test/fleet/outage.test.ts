/**
 * A fleet over one Redis node when something dies: a server killed during
 * writes loses no acknowledged write; Redis gone is a 503, never stale data,
 * until it is back; a Redis restart under load keeps every acknowledged
 * write. (A cluster's primary dying is `cluster.test.ts`'s.)
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { listening, runCli } from '../support/cli.js'
import { type RedisServer, startRedis } from '../support/redisServer.js'
import { NOW } from '../support/transports.js'
import { allContacts, control, createContact, get, redisCli, server, stopServers } from './fleet.js'

let redis: RedisServer

beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis.stop()
})
afterEach(async () => {
  await stopServers()
  // Each test starts from an empty store.
  await redis.kill()
  await redis.restart()
  redisCli(redis.port, 'FLUSHALL')
})

describe('servers over one Redis node, when something dies', () => {
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
    await vi.waitFor(() => expect(acknowledged.length).toBeGreaterThan(10), { timeout: 30_000 })
    cli.child.kill('SIGKILL')
    await Promise.all(writers)
    const survivor = await server(redis.url)
    expect((await allContacts(survivor.url)).map(({ id }) => id)).toEqual(expect.arrayContaining(acknowledged))
  })

  it('answers 503 storage_unavailable while Redis is gone, never stale data, and recovers by itself', async () => {
    const [a, b] = [await server(redis.url), await server(redis.url)]
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
    // A settings change is kept in the store before it is answered: none, and no server applies it.
    const setting = await control(a.url, '/_sandbox/settings', { rate_limit: '1/min' })
    expect(setting.status).toBe(503)
    expect(setting.body.error.code).toBe('storage_unavailable')
    // Alive, not ready: a probe takes the server out until Redis is back.
    expect((await get(a.url, '/_sandbox/live')).status).toBe(200)
    expect((await get(a.url, '/_sandbox/ready')).body.error.code).toBe('storage_unavailable')
    expect(await (await fetch(`${a.url}/_sandbox/metrics`)).text()).toMatch(/^call_sandbox_store_errors_total [1-9]/m)

    await redis.restart()
    // The client reconnects on its own; the first answers after that are whole again.
    const after = await vi.waitFor(
      async () => {
        const answer = await createContact(b.url, '+14155550105')
        expect(answer.status).toBe(201)
        return answer
      },
      { timeout: 10_000, interval: 100 },
    )
    expect(after.body.data.phone).toBe('+14155550105')
    const phones = (await allContacts(a.url)).map(({ phone }) => phone)
    expect(phones).toEqual(expect.arrayContaining(['+14155550104', '+14155550105']))
    expect(phones.filter((phone) => phone === '+14155550105')).toHaveLength(1)
    expect((await get(a.url, '/_sandbox/settings')).body.data.changed).toEqual([])
  })

  it('keeps every acknowledged write across a Redis restart under load', async () => {
    const [a, b] = [await server(redis.url), await server(redis.url)]
    const acknowledged: string[] = []
    let refused = 0
    let writing = true
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
    await vi.waitFor(() => expect(acknowledged.length).toBeGreaterThan(10), { timeout: 30_000 })
    await redis.kill()
    await vi.waitFor(() => expect(refused).toBeGreaterThan(0), { timeout: 30_000 })
    await redis.restart()
    const beforeRestart = acknowledged.length
    await vi.waitFor(() => expect(acknowledged.length).toBeGreaterThan(beforeRestart + 10), { timeout: 30_000 })
    writing = false
    await Promise.all(writers)
    const later = await server(redis.url)
    expect((await allContacts(later.url)).map(({ id }) => id)).toEqual(expect.arrayContaining(acknowledged))
  })

  it("journals a proxied request for the whole fleet, with the contract's verdict", async () => {
    const upstream = await server(redis.url, { store: undefined })
    const [a, b] = [await server(redis.url, { proxy: { upstream: upstream.url } }), await server(redis.url)]
    const proxied = await get(a.url, '/v1/calls?limit=1')
    expect(proxied.status).toBe(200)
    // The journal is written as the answer goes: it lands a moment later.
    const journal = await vi.waitFor(async () => {
      const entries = (await get(b.url, '/_sandbox/requests')).body.data
      expect(entries).toHaveLength(1)
      return entries
    })
    expect(journal[0]).toMatchObject({
      path: '/v1/calls',
      status: 200,
      contract: { violation_count: 0, upstream_request_id: expect.stringMatching(/^req_/) },
    })
  })
})
