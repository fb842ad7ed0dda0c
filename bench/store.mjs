// The stores' figures (issue 21), each against a baseline measured in the same run, servers as children
// (the built call-sandbox command), a fresh redis-server (appendfsync always) in a temp folder:
//   1. file store: write p50 over the last 500 of 50,000 sequential POST /v1/contacts, against the first 500;
//   2. start-up with those 50,000 logged writes, against a start-up with an empty data file;
//   3. Redis store: GET /v1/calls?limit=20 throughput, against the same server with no store (rounds interleaved);
//   4. Redis store: write p50, against the file store's (interleaved blocks);
//   5. two servers over one Redis, the load split between them, against one server over the same Redis.
// STORE_WRITES=5000 runs figure 1 and 2 smaller (a quick look; the goal is stated at 50,000); 0 skips them.
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { killChildren, launch, stop, waitFor } from './children.mjs'
import { median } from './median.mjs'
import { closeConnections, freePort, readRate, send, serve } from './servers.mjs'

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
/** @param {string} url @param {number} count */
async function writeTimes(url, count) {
  /** @type {number[]} */
  const times = []
  for (let i = 0; i < count; i++) {
    const body = JSON.stringify({ phone: `+1${String(2_000_000_000 + phones++)}` })
    const start = performance.now()
    const status = await send(url, 'POST', '/v1/contacts', body)
    times.push(performance.now() - start)
    if (status !== 201) throw new Error(`POST /v1/contacts: ${status}`)
  }
  return times
}

/** @type {Record<string, string>[]} */
const rows = []
/** @param {string} what @param {number} value @param {number} baseline */
const row = (what, value, baseline, goal = '') => {
  const ratio = value / baseline
  rows.push({ what, value: value.toFixed(2), baseline: baseline.toFixed(2), ratio: `${ratio.toFixed(2)}x`, goal })
}

async function main() {
  if (WRITES > 0) await fileStore()
  await redisStore()
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
  /** @type {number[]} */
  const plainRates = []
  /** @type {number[]} */
  const redisRates = []
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
  /** @type {number[]} */
  const redisWrites = []
  /** @type {number[]} */
  const fileWrites = []
  for (let block = 0; block < 4; block++) {
    redisWrites.push(...(await writeTimes(shared.url, 250)))
    fileWrites.push(...(await writeTimes(fileServer.url, 250)))
  }
  row('Redis store: write p50 (ms), against the file store', median(redisWrites), median(fileWrites), 'reported')
  await stop(fileServer.child)

  const second = await serve(['--store', redis.url], SLOW_START)
  /** @type {number[]} */
  const oneRates = []
  /** @type {number[]} */
  const twoRates = []
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

try {
  await main()
} finally {
  closeConnections()
  await killChildren()
  rmSync(folder, { recursive: true, force: true })
}
