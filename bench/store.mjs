// The stores' figures (issue 21), each against a baseline measured in the same run, servers as children
// (the built call-sandbox command), a fresh redis-server (appendfsync always) in a temp folder:
//   1. file store: write p50 over the last 500 of 50,000 sequential POST /v1/contacts, against the first 500;
//   2. start-up with those 50,000 logged writes, against a start-up with an empty data file;
//   3. Redis store: GET /v1/calls?limit=20 throughput, against the same server with no store (rounds interleaved);
//   4. Redis store: write p50, against the file store's (interleaved blocks);
//   5. two servers over one Redis, the load split between them, against one server over the same Redis;
//   6. a Redis Cluster of three primaries: reads/s over eight sessions, against one Redis node (rounds interleaved);
//   7. the same cluster: write p50, against one node (interleaved blocks);
//   8. the first answer of a session of 50,000 writes (its load from Redis), its log whole and then compacted,
//      against the first answer of a new session: writes of new contacts, then writes that mostly move the clock.
// STORE_WRITES=5000 runs figures 1, 2 and 8 smaller (a quick look; the goal is stated at 50,000); 0 skips them.
import { randomBytes } from 'node:crypto'
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from '@redis/client'
import { createSandbox } from 'call-sandbox'
import { startCluster } from '../test/support/redisCluster.mjs'
import { killChildren, launch, stop, waitFor } from './children.mjs'
import { median } from './median.mjs'
import { closeConnections, freePort, NOW, readRate, send, serve } from './servers.mjs'

const WRITES = Number(process.env.STORE_WRITES ?? 50_000)
const ROUNDS = 3
// A start-up that puts 50,000 logged writes back may take a while.
const SLOW_START = { timeoutMs: 300_000 }
// Not named call-sandbox-*: a test run going on beside the bench would count it as its own leftover.
const folder = mkdtempSync(join(tmpdir(), 'bench-call-sandbox-store-'))

async function startRedis() {
  if (spawnSync('redis-server', ['--version']).error)
    throw new Error('redis-server is missing (apt-get install redis-server).')
  const port = await freePort()
  const dir = mkdtempSync(join(folder, 'redis-'))
  // The fleet tests' settings: appendfsync always, loopback, no snapshots.
  const child = launch('redis-server', ['test/support/durable-redis.conf', '--port', String(port), '--dir', dir])
  await waitFor(child, /Ready to accept connections/)
  return { child, url: `redis://127.0.0.1:${port}` }
}

let phones = 0
/** @param {string} url @param {number} count @param {string} [root] */
async function writeTimes(url, count, root = '') {
  /** @type {number[]} */
  const times = []
  for (let i = 0; i < count; i++) {
    const body = JSON.stringify({ phone: `+1${String(2_000_000_000 + phones++)}` })
    const start = performance.now()
    const status = await send(url, 'POST', `${root}/v1/contacts`, body)
    times.push(performance.now() - start)
    if (status !== 201) throw new Error(`POST /v1/contacts: ${status}`)
  }
  return times
}

/** @type {Array<Record<string, string>>} */
const rows = []
/** @param {string} what @param {number} value @param {number} baseline @param {string} [goal] */
const row = (what, value, baseline, goal = '') => {
  const ratio = value / baseline
  rows.push({ what, value: value.toFixed(2), baseline: baseline.toFixed(2), ratio: `${ratio.toFixed(2)}x`, goal })
}

async function main() {
  if (WRITES > 0) await fileStore()
  await redisStore()
  await redisCluster()
  if (WRITES > 0) await longSessions()
  console.table(rows)
}

async function fileStore() {
  // 1 and 2: the file store.
  const file = join(folder, 'sandbox.log')
  const empty = await serve(['--data', join(folder, 'empty.log')], SLOW_START)
  await stop(empty.child)
  const emptyStart = await serve(['--data', join(folder, 'empty.log')], SLOW_START)
  await stop(emptyStart.child)
  const writer = await serve(['--data', file], SLOW_START)
  const times = await writeTimes(writer.url, WRITES)
  await stop(writer.child)
  const first = median(times.slice(0, 500))
  const last = median(times.slice(-500))
  row(`file store: write p50 (ms), last 500 of ${WRITES} against the first 500`, last, first, '<= 1.5x')
  copyFileSync(file, join(folder, 'logged.log'))
  const restarted = await serve(['--data', join(folder, 'logged.log')], SLOW_START)
  await stop(restarted.child)
  row(
    `start-up (ms) with ${WRITES} logged writes (put back, then compacted), against an empty data file`,
    restarted.startMs,
    emptyStart.startMs,
    'reported',
  )
  const compacted = await serve(['--data', join(folder, 'logged.log')], SLOW_START)
  await stop(compacted.child)
  row(
    `start-up (ms) with the same, compacted, against an empty data file`,
    compacted.startMs,
    emptyStart.startMs,
    'reported',
  )
}

async function redisStore() {
  // 3, 4, 5: Redis.
  const redis = await startRedis()
  const plain = await serve([], SLOW_START)
  const shared = await serve(['--store', redis.url], SLOW_START)
  const [plainRates, redisRates] = [/** @type {number[]} */ ([]), /** @type {number[]} */ ([])]
  for (let round = 0; round < ROUNDS; round++) {
    plainRates.push(await readRate([plain.url]))
    redisRates.push(await readRate([shared.url]))
  }
  row(
    'Redis store: reads/s, no store against Redis (how much slower a read is)',
    median(plainRates),
    median(redisRates),
    '<= 1.2x',
  )
  await stop(plain.child)

  const fileServer = await serve(['--data', join(folder, 'compare.log')], SLOW_START)
  const [redisWrites, fileWrites] = [/** @type {number[]} */ ([]), /** @type {number[]} */ ([])]
  for (let block = 0; block < 4; block++) {
    redisWrites.push(...(await writeTimes(shared.url, 250)))
    fileWrites.push(...(await writeTimes(fileServer.url, 250)))
  }
  row('Redis store: write p50 (ms), against the file store', median(redisWrites), median(fileWrites), 'reported')
  await stop(fileServer.child)

  const second = await serve(['--store', redis.url], SLOW_START)
  const [oneRates, twoRates] = [/** @type {number[]} */ ([]), /** @type {number[]} */ ([])]
  for (let round = 0; round < ROUNDS; round++) {
    oneRates.push(await readRate([shared.url]))
    twoRates.push(await readRate([shared.url, second.url]))
  }
  row(
    'two servers over one Redis: reads/s, against one (2 cores: the client shares them)',
    median(twoRates),
    median(oneRates),
    'reported',
  )
  await stop(second.child)
  await stop(shared.child)
  await stop(redis.child)
}

async function redisCluster() {
  // 6, 7: a cluster against one node, each under one server; reads spread over sessions, which the cluster shards.
  const redis = await startRedis()
  const cluster = await startCluster({ primaries: 3, within: folder })
  try {
    const one = await serve(['--store', redis.url], SLOW_START)
    const many = await serve(['--store', cluster.url], SLOW_START)
    const roots = Array.from({ length: 8 }, (_, i) => `/sessions/bench-${i}`)
    const [oneRates, clusterRates] = [/** @type {number[]} */ ([]), /** @type {number[]} */ ([])]
    for (let round = 0; round < ROUNDS; round++) {
      oneRates.push(await readRate([one.url], { roots }))
      clusterRates.push(await readRate([many.url], { roots }))
    }
    row('Redis Cluster (3 primaries): reads/s, against one node', median(clusterRates), median(oneRates), 'reported')
    const [oneWrites, clusterWrites] = [/** @type {number[]} */ ([]), /** @type {number[]} */ ([])]
    for (let block = 0; block < 4; block++) {
      oneWrites.push(...(await writeTimes(one.url, 250, roots[block])))
      clusterWrites.push(...(await writeTimes(many.url, 250, roots[block])))
    }
    row('Redis Cluster: write p50 (ms), against one node', median(clusterWrites), median(oneWrites), 'reported')
    await stop(one.child)
    await stop(many.child)
  } finally {
    await stop(redis.child)
    await cluster.stop()
  }
}

/**
 * 8: a session of WRITES writes, its log put in Redis as servers append it (the layout of
 * src/server/redisScripts.ts), made in this process: 50,000 writes over HTTP would take minutes. Two sessions:
 * one of new contacts (each write adds to what the snapshot holds), one whose writes mostly move its clock (what
 * live mode does: the snapshot holds none of them).
 */
async function longSessions() {
  for (const [kind, contactEvery] of /** @type {Array<[string, number]>} */ ([
    ['new contacts', 1],
    ['clock moves, a new contact every 50th', 50],
  ])) {
    await longSession(`${WRITES} writes, ${kind}`, await logOf(WRITES, contactEvery))
  }
}

/** @param {string} what @param {string[]} entries */
async function longSession(what, entries) {
  const redis = await startRedis()
  const client = await createClient({ url: redis.url }).connect()
  try {
    // A server first: it writes the world the store belongs to.
    await stop((await serve(['--store', redis.url], SLOW_START)).child)
    const session = 'call-sandbox:{long}'
    let bytes = 0
    for (let i = 0; i < entries.length; i += 1_000) {
      const tagged = entries.slice(i, i + 1_000).map((entry) => randomBytes(6).toString('base64url') + entry)
      bytes += tagged.reduce((sum, entry) => sum + Buffer.byteLength(entry), 0)
      await client.rPush(`${session}:log`, tagged)
    }
    await client.hSet(`${session}:head`, { generation: '0', base: '0', bytes: String(bytes), snapshot_bytes: '0' })
    await client.set(`${session}:session`, JSON.stringify({ created_at: NOW, options: null }))
    await client.zAdd('call-sandbox:sessions', { score: Date.now(), value: 'long' })

    const whole = await firstAnswers(redis.url)
    // One more write: past its snapshot (none) by far, the log is compacted by the server that wrote it.
    const writer = await serve(['--store', redis.url], SLOW_START)
    if ((await send(writer.url, 'POST', '/sessions/long/v1/contacts', '{"phone":"+13000000000"}')) !== 201)
      throw new Error('the write that compacts the log was refused')
    const deadline = performance.now() + 300_000
    while (Number(await client.hGet(`${session}:head`, 'base')) === 0) {
      if (performance.now() > deadline)
        throw new Error(`the long session was not compacted within 300 s; the server said:\n${writer.child.output}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    await stop(writer.child)
    const snapshotBytes = Number(await client.hGet(`${session}:head`, 'snapshot_bytes'))
    const compacted = await firstAnswers(redis.url)
    const fresh = median([...whole.fresh, ...compacted.fresh])
    const size = `${(bytes / 1e6).toFixed(1)} MB of log, ${(snapshotBytes / 1e6).toFixed(1)} MB of snapshot`
    row(
      `first answer (ms), a session of ${what} (${size}), its log whole, against a new session`,
      median(whole.long),
      fresh,
      'reported',
    )
    row(
      '  the same, its log compacted into a snapshot, against a new session',
      median(compacted.long),
      fresh,
      'reported',
    )
    row('  the same, compacted against whole', median(compacted.long), median(whole.long), 'reported')
  } finally {
    client.destroy()
    await stop(redis.child)
  }
}

/** A session's log of `count` writes made one by one (a new contact every `contactEvery`th, else the clock moved a minute), each entry as a server appends it (its JSON). */
/** @param {number} count @param {number} contactEvery */
async function logOf(count, contactEvery) {
  const sandbox = createSandbox({ now: NOW })
  await sandbox.ready
  /** @type {string[]} */
  const entries = []
  sandbox.keepWritesIn({
    append: async (entry) => {
      entries.push(JSON.stringify(entry))
    },
    health: () => ({ kind: 'memory', state: 'ok', error: null }),
  })
  for (let i = 0; i < count; i++) {
    if (i % contactEvery === 0) await sandbox.addContact({ phone: `+1${String(2_500_000_000 + i)}` })
    else await sandbox.moveClock(sandbox.clock.now() + 60_000)
  }
  return entries
}

/** In fresh servers, ROUNDS times: how long the first answer of a new session, then of the long one, takes (ms). */
/** @param {string} url */
async function firstAnswers(url) {
  /** @type {{ fresh: number[], long: number[] }} */
  const times = { fresh: [], long: [] }
  for (let round = 0; round < ROUNDS; round++) {
    const server = await serve(['--store', url], SLOW_START)
    // The first request of the process warms it up; it is no session's load.
    await send(server.url, 'GET', '/v1/contacts?limit=1')
    for (const [what, root] of /** @type {Array<['fresh' | 'long', string]>} */ ([
      ['fresh', `/sessions/fresh-${round}`],
      ['long', '/sessions/long'],
    ])) {
      const start = performance.now()
      const status = await send(server.url, 'GET', `${root}/v1/contacts?limit=1`)
      if (status !== 200) throw new Error(`GET ${root}/v1/contacts: ${status}`)
      times[what].push(performance.now() - start)
    }
    await stop(server.child)
  }
  return times
}

try {
  await main()
} finally {
  closeConnections()
  await killChildren()
  rmSync(folder, { recursive: true, force: true })
}
