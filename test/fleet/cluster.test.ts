/**
 * A fleet over a Redis Cluster with replicas (three primaries, one replica
 * each): found from any node or a list of them, and whole across a
 * failover: a primary killed under load, every write answered 201 is there
 * once its replica took over, and nothing but 201 and 503 is answered
 * meanwhile, never stale data.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { type RedisCluster, startCluster } from '../support/redisCluster.mjs'
import { listening, runCli } from '../support/cli.js'
import { NOW } from '../support/transports.js'
import { allContacts, createContact, get, server, stopServers } from './fleet.js'

let cluster: RedisCluster
beforeAll(async () => {
  // A node unanswered for a second is failed over: a failover within a test's time.
  cluster = await startCluster({ primaries: 3, replicas: 1, nodeTimeoutMs: 1_000 })
})
afterEach(stopServers)
afterAll(() => cluster.stop())

describe('servers over a Redis Cluster with replicas', () => {
  it('find the whole cluster from any one of its nodes, a replica too, or from a list of them', async () => {
    const primaries = (await cluster.primaries()).map(({ port }) => port)
    const replica = cluster.nodes.find(({ port }) => !primaries.includes(port))!
    const [a, b] = [await server(`redis://127.0.0.1:${replica.port}`), await server(cluster.urls)]
    const written = await createContact(`${a.url}/sessions/found`, '+14155550401')
    expect(written.status).toBe(201)
    expect((await get(b.url, `/sessions/found/v1/contacts/${written.body.data.id}`)).body.data).toEqual(
      written.body.data,
    )
    expect((await get(b.url, '/_sandbox/health')).body.data.store).toEqual({ kind: 'redis', state: 'ok', error: null })
  })

  it('answers a write once as many replicas as --store-replicas asks have it, and 503 when they cannot', async () => {
    const cli = runCli(['--port', '0', '--now', NOW, '--quiet', '--store', cluster.url, '--store-replicas', '2'])
    const [strict, one] = [(await listening(cli)).url, (await server(cluster.url, { storeReplicas: 1 })).url]
    // One replica a primary: two never have it.
    const refused = await createContact(`${strict}/sessions/replicated`, '+14155550402')
    expect(refused.status).toBe(503)
    expect(refused.body.error).toMatchObject({ code: 'storage_unavailable', message: expect.stringMatching(/replica/) })
    expect((await createContact(`${one}/sessions/replicated`, '+14155550403')).status).toBe(201)
  })

  it('answers 503 a write whose replica does not take it within 1 s, and 201 again once it does', async () => {
    const { url } = await server(cluster.url)
    const session = 'frozen-replica'
    const [replica] = await cluster.replicasOf(await cluster.portOf(`call-sandbox:{${session}}:log`))
    const node = cluster.nodes.find(({ port }) => port === replica)!
    expect((await createContact(`${url}/sessions/${session}`, '+14155550404')).status).toBe(201)
    node.freeze()
    try {
      // Still connected to its primary: `auto` waits for it.
      const refused = await createContact(`${url}/sessions/${session}`, '+14155550405')
      expect(refused.status).toBe(503)
      expect(refused.body.error.message).toMatch(/0 of the 1 replica a write needs took it within 1000 ms/)
      // The primary has it (the replicas are asked after it took it): the answer says so, and not to send it again
      // blindly, which would move a clock twice.
      expect(refused.body.error.message).toMatch(/took the write, but .* read before you send it again/)
      expect(refused.body.error.message).not.toMatch(/Nothing of it was kept/)
    } finally {
      node.thaw()
    }
    await vi.waitFor(
      async () => expect((await createContact(`${url}/sessions/${session}`, '+14155550406')).status).toBe(201),
      { timeout: 20_000, interval: 200 },
    )
    const phones = (await allContacts(`${url}/sessions/${session}`)).map(({ phone }) => phone)
    expect(phones.filter((phone) => phone === '+14155550405')).toEqual(['+14155550405'])
  })

  it.each([
    ['redis://', /--store takes redis:\/\/host:port/],
    ['http://127.0.0.1:6379', /--store takes redis:\/\/host:port/],
    ['redis://127.0.0.1:7000,127.0.0.1:7001/2', /a Redis Cluster has one database/],
    ['redis://127.0.0.1:1', /ECONNREFUSED/],
  ])('refuses --store %s, saying why, rather than start or wait', async (store, message) => {
    await expect(server(store)).rejects.toThrow(message)
  })

  it('keeps every write answered 201 when a primary is killed under load, and answers only 503 meanwhile', async () => {
    const [a, b] = [await server(cluster.url), await server(cluster.url)]
    const sessions = Array.from({ length: 6 }, (_, i) => `failover-${i}`)
    const homes = await Promise.all(sessions.map((session) => cluster.portOf(`call-sandbox:{${session}}:log`)))
    const victim = homes[0]!
    expect(new Set(homes).size).toBeGreaterThan(1)
    const acknowledged = new Map<string, string[]>(sessions.map((session) => [session, []]))
    const statuses = new Map<number, number>()
    const unexpected: string[] = []
    let writing = true
    const writers = sessions.map(async (session, s) => {
      for (let i = 0; writing; i++) {
        const [writer, reader] = i % 2 === 0 ? [a, b] : [b, a]
        const answer = await createContact(
          `${writer.url}/sessions/${session}`,
          `+1419${s}${String(i).padStart(6, '0')}`,
        )
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
        if (answer.status !== 201) {
          if (answer.status !== 503)
            unexpected.push(`${session} write: ${answer.status} ${JSON.stringify(answer.body)}`)
          continue
        }
        acknowledged.get(session)!.push(answer.body.data.id)
        // Read back at once from the other server: the write, or a 503; never a world without it.
        const read = await get(reader.url, `/sessions/${session}/v1/contacts/${answer.body.data.id}`)
        if (read.status === 503) continue
        if (read.status !== 200 || read.body.data.id !== answer.body.data.id) {
          unexpected.push(`${session} read: ${read.status} ${JSON.stringify(read.body)}`)
        }
      }
    })
    const written = (session: string) => acknowledged.get(session)!.length
    await vi.waitFor(() => expect(Math.min(...sessions.map(written))).toBeGreaterThanOrEqual(3), { timeout: 30_000 })
    await cluster.crash(victim)
    // The victim's sessions take writes again, on its replica, with no one restarting anything.
    const before = written(sessions[0]!)
    await vi.waitFor(() => expect(written(sessions[0]!)).toBeGreaterThanOrEqual(before + 3), { timeout: 30_000 })
    writing = false
    await Promise.all(writers)

    expect(unexpected).toEqual([])
    expect([...statuses.keys()].sort()).toEqual([201, 503])
    expect(await cluster.portOf('call-sandbox:{failover-0}:log')).not.toBe(victim)
    // Started from a list of nodes whose first is the one killed: it goes on to the next.
    const later = await server(`redis://127.0.0.1:${victim},${cluster.urls.slice('redis://'.length)}`)
    for (const session of sessions) {
      const contacts = await allContacts(a.url, `/sessions/${session}`)
      expect(contacts.map(({ id }) => id)).toEqual(expect.arrayContaining(acknowledged.get(session)!))
      for (const reader of [b, later]) expect(await allContacts(reader.url, `/sessions/${session}`)).toEqual(contacts)
    }
  }, 120_000)
})
