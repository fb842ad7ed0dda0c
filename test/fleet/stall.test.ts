/**
 * A store that stalls (its process stopped with SIGSTOP: connections open,
 * nothing answered, no TCP reset, as a partitioned primary does): every
 * request that needs it answers 503 `storage_unavailable` within
 * `--store-timeout` (2 s by default; the test allows 10 s, against the 100 s
 * and more of a hang), the readiness probe fails, the liveness probe does
 * not, and once the store goes on, the servers answer again with no restart,
 * in a state every server agrees on, a write answered 503 kept at most once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { listening, runCli } from '../support/cli.js'
import { type RedisCluster, startCluster } from '../support/redisCluster.mjs'
import { type RedisServer, startRedis } from '../support/redisServer.js'
import { NOW } from '../support/transports.js'
import { COMMAND_QUEUE_LIMIT, connectRedis } from '../../src/server/redisConnection.js'
import { allContacts, closed, createContact, get, redisCli, server, stopServers } from './fleet.js'

/** The test's bound on an answer: far above `--store-timeout`'s 2 s, far below a hang. */
const BOUND_MS = 10_000

/** An answer and how long it took; fails when none comes within `BOUND_MS`. */
async function timed<T>(what: string, answer: Promise<T>): Promise<T & { ms: number }> {
  const started = performance.now()
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${BOUND_MS} ms`)), BOUND_MS)
  })
  try {
    return { ...(await Promise.race([answer, late])), ms: performance.now() - started }
  } finally {
    clearTimeout(timer)
  }
}

/** How long the servers took to answer again after the store went on: a write 201 and the probe 200. */
async function recovered(url: string, phone: string): Promise<number> {
  const started = performance.now()
  await vi.waitFor(
    async () => {
      expect((await get(url, '/_sandbox/ready')).status).toBe(200)
      expect([201, 409]).toContain((await createContact(url, phone)).status)
    },
    { timeout: BOUND_MS, interval: 50 },
  )
  return performance.now() - started
}

/** What each stalled answer took, for the notes (`STALL_TIMES=1`). */
function report(what: string, times: Record<string, number>): void {
  if (process.env.STALL_TIMES) console.log(what, JSON.stringify(times))
}

describe('servers over one Redis node that stalls', () => {
  let redis: RedisServer
  beforeAll(async () => {
    redis = await startRedis()
  })
  afterEach(async () => {
    redis.thaw()
    await stopServers()
    redisCli(redis.port, 'FLUSHALL')
  })
  afterAll(() => redis.stop())

  it('answers 503 storage_unavailable within the bound, fails readiness, stays alive, and recovers by itself', async () => {
    const [a, b] = [await server(redis.url), await server(redis.url)]
    expect((await createContact(a.url, '+14155550701')).status).toBe(201)
    redis.freeze()
    let stalled: Record<string, number> = {}
    try {
      const [write, faults, ready, live] = await Promise.all([
        timed('a write', createContact(a.url, '+14155550702')),
        timed('GET /_sandbox/faults', get(b.url, '/_sandbox/faults')),
        timed('GET /_sandbox/ready', get(a.url, '/_sandbox/ready')),
        timed('GET /_sandbox/live', get(a.url, '/_sandbox/live')),
      ])
      for (const answer of [write, faults, ready]) {
        expect(answer.status).toBe(503)
        expect(answer.body.error.code).toBe('storage_unavailable')
      }
      expect(write.body.error.message).toMatch(/did not answer within 2000 ms \(--store-timeout\)/)
      expect(write.body.error.message).toMatch(/may still be kept/)
      // Alive all along: the liveness probe never waits for the store.
      expect(live.status).toBe(200)
      expect(live.ms).toBeLessThan(1_000)
      // Still stalled: the next request waits no longer than the first did (nothing queued ahead of it counts).
      const again = await timed('a second write', createContact(b.url, '+14155550703'))
      expect(again.status).toBe(503)
      expect((await timed('the health', get(a.url, '/_sandbox/health'))).body.error.code).toBe('storage_unavailable')
      stalled = { write: write.ms, faults: faults.ms, ready: ready.ms, live: live.ms, again: again.ms }
    } finally {
      redis.thaw()
    }
    const recovery = await recovered(a.url, '+14155550704')
    report('one node', { ...stalled, recovery })

    // A write answered 503 is kept at most once, and every server holds the same world.
    const phones = (await allContacts(a.url)).map(({ phone }) => phone)
    for (const phone of ['+14155550702', '+14155550703'])
      expect(phones.filter((p) => p === phone).length).toBeLessThan(2)
    expect(phones).toEqual(expect.arrayContaining(['+14155550701', '+14155550704']))
    expect(await allContacts(b.url)).toEqual(await allContacts(a.url))
    // Sent again once the store answers: kept, once (a contact's phone is unique: 409 if the first made it).
    expect([201, 409]).toContain((await createContact(b.url, '+14155550702')).status)
    expect((await allContacts(a.url)).filter(({ phone }) => phone === '+14155550702')).toHaveLength(1)
  })

  it('answers within --store-timeout as set', async () => {
    const { url } = await listening(
      runCli(['--port', '0', '--now', NOW, '--quiet', '--store', redis.url, '--store-timeout', '300']),
    )
    redis.freeze()
    try {
      const write = await timed('a write', createContact(url, '+14155550705'))
      expect(write.status).toBe(503)
      expect(write.body.error.message).toMatch(/within 300 ms/)
    } finally {
      redis.thaw()
    }
    await recovered(url, '+14155550706')
  })

  it('closes a server within the bound while its Redis stalls, a command unanswered', async () => {
    const target = await server(redis.url)
    redis.freeze()
    try {
      expect((await timed('a write', createContact(target.url, '+14155550707'))).status).toBe(503)
      await timed(
        'the close',
        closed(target).then(() => ({})),
      )
    } finally {
      redis.thaw()
    }
  })

  it(`fails a command at once when ${COMMAND_QUEUE_LIMIT} wait for a stalled Redis, rather than hold more`, async () => {
    const connection = await connectRedis(redis.url, 0, { failed: () => undefined, ready: () => undefined }, 60_000)
    redis.freeze()
    try {
      const waiting = Array.from({ length: COMMAND_QUEUE_LIMIT }, (_, i) => connection.send('k', ['ECHO', `${i}`]))
      await expect(timed('one more', connection.send('k', ['PING']))).rejects.toThrow('The queue is full')
      redis.thaw()
      // The ones that waited are answered once Redis goes on, each its own answer (not its neighbour's).
      expect(await Promise.all(waiting)).toEqual(Array.from({ length: COMMAND_QUEUE_LIMIT }, (_, i) => `${i}`))
    } finally {
      redis.thaw()
      await connection.close()
    }
  })

  it('stops a start whose Redis takes the connection and never answers, saying so', async () => {
    redis.freeze()
    try {
      const started = timed(
        'a start',
        server(redis.url, { storeTimeout: 500 }).then(
          () => ({ error: '' }),
          (error: Error) => ({ error: error.message }),
        ),
      )
      expect((await started).error).toMatch(/Redis took the connection and did not answer within 2500 ms/)
    } finally {
      redis.thaw()
    }
  })

  it.each([0, 1.5, 600_001])('refuses a storeTimeout of %s given to startServer, saying why', async (storeTimeout) => {
    await expect(server(redis.url, { storeTimeout })).rejects.toThrow(
      /--store-timeout takes a whole number of ms from 10 to 600000/,
    )
  })

  it.each([
    [['--store-timeout', '300'], /--store-timeout goes with --store/],
    [
      ['--store', 'redis://127.0.0.1:1', '--store-timeout', '5'],
      /--store-timeout.*expected an integer from 10 to 600000/,
    ],
    [['--store', 'redis://127.0.0.1:1', '--store-timeout', '2s'], /--store-timeout.*expected an integer/],
  ])('refuses %j, saying why', async (args, message) => {
    const cli = runCli(['--port', '0', '--quiet', ...args])
    expect((await cli.exit()).code).toBe(1)
    expect(cli.stderr()).toMatch(message)
  })
})

describe('servers over a Redis Cluster whose primary stalls', () => {
  let cluster: RedisCluster
  beforeAll(async () => {
    // No replicas: the stalled primary stays the primary (no failover), as a partition shorter than one does.
    cluster = await startCluster({ primaries: 3 })
  })
  afterEach(async () => {
    for (const node of cluster.nodes) node.thaw()
    await stopServers()
    await cluster.flush()
  })
  afterAll(() => cluster.stop())

  it('answers 503 for the sessions of that primary within the bound, and the others as ever', async () => {
    const [a, b] = [await server(cluster.url), await server(cluster.url)]
    const home = await cluster.portOf('call-sandbox:{default}:log')
    let other = ''
    for (const name of ['s1', 's2', 's3', 's4', 's5', 's6', 's7', 's8']) {
      if ((await cluster.portOf(`call-sandbox:{${name}}:log`)) !== home) {
        other = name
        break
      }
    }
    expect(other, 'a session on another primary than the default one').not.toBe('')
    expect((await createContact(a.url, '+14155550801')).status).toBe(201)
    expect((await createContact(`${a.url}/sessions/${other}`, '+14155550802')).status).toBe(201)
    const node = cluster.nodes.find(({ port }) => port === home)!
    node.freeze()
    let stalled: Record<string, number> = {}
    try {
      const [write, read, ready, live, unaffected] = await Promise.all([
        timed('a write', createContact(a.url, '+14155550803')),
        timed('a read', get(b.url, '/v1/contacts?limit=1')),
        timed('GET /_sandbox/ready', get(b.url, '/_sandbox/ready')),
        timed('GET /_sandbox/live', get(a.url, '/_sandbox/live')),
        timed('a write elsewhere', createContact(`${b.url}/sessions/${other}`, '+14155550804')),
      ])
      for (const answer of [write, read, ready]) {
        expect(answer.status).toBe(503)
        expect(answer.body.error.code).toBe('storage_unavailable')
      }
      expect(live.status).toBe(200)
      // A session on another primary is served as ever.
      expect(unaffected.status).toBe(201)
      stalled = { write: write.ms, read: read.ms, ready: ready.ms, live: live.ms, elsewhere: unaffected.ms }
    } finally {
      node.thaw()
    }
    const recovery = await recovered(a.url, '+14155550805')
    report('cluster primary', { ...stalled, recovery })
    expect(await allContacts(b.url)).toEqual(await allContacts(a.url))
    expect((await allContacts(a.url)).filter(({ phone }) => phone === '+14155550803').length).toBeLessThan(2)
    expect((await allContacts(b.url, `/sessions/${other}`)).map(({ phone }) => phone)).toEqual(
      expect.arrayContaining(['+14155550802', '+14155550804']),
    )
  })

  it('stops a start while a primary stalls, saying so (not that no cluster answered)', async () => {
    const [root, , stalled] = cluster.nodes
    stalled!.freeze()
    try {
      const started = timed(
        'a start',
        server(`redis://127.0.0.1:${root!.port}`, { storeTimeout: 500 }).then(
          () => ({ error: '' }),
          (error: Error) => ({ error: error.message }),
        ),
      )
      const { error } = await started
      expect(error).toMatch(/a node of the Redis Cluster took the connection and did not answer within 2500 ms/)
      expect(error).not.toMatch(/no Redis Cluster answered/)
    } finally {
      stalled!.thaw()
    }
  })
})

describe('servers over a Redis Cluster whose primary stalls and is failed over', () => {
  let cluster: RedisCluster
  beforeAll(async () => {
    // A node silent for a second is failed over to its replica, within a test's time.
    cluster = await startCluster({ primaries: 3, replicas: 1, nodeTimeoutMs: 1_000 })
  })
  afterEach(async () => {
    for (const node of cluster.nodes) node.thaw()
    await stopServers()
  })
  afterAll(() => cluster.stop())

  it("serves that primary's sessions from its replica once the cluster promotes it, while the old one still stalls", async () => {
    const target = await server(cluster.url)
    const session = `${target.url}/sessions/moved`
    expect((await createContact(session, '+14155550901')).status).toBe(201)
    const home = await cluster.portOf('call-sandbox:{moved}:log')
    const [replica] = await cluster.replicasOf(home)
    const node = cluster.nodes.find(({ port }) => port === home)!
    node.freeze()
    try {
      await vi.waitFor(() => expect(redisCli(replica!, 'ROLE').split('\n')[0]).toBe('master'), {
        timeout: BOUND_MS,
        interval: 100,
      })
      // The old primary still holds its connection open and answers nothing: no reconnect tells the client.
      let sent = 0
      await vi.waitFor(async () => expect((await createContact(session, `+1415555091${sent++}`)).status).toBe(201), {
        timeout: BOUND_MS,
        interval: 100,
      })
      const phones = (await allContacts(session)).map(({ phone }) => phone)
      expect(phones).toContain('+14155550901')
    } finally {
      node.thaw()
    }
  })
})
