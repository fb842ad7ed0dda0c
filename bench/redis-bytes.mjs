// What a fleet keeps in Redis (issue 43): the built command over a fresh redis-server, then
//   1. the journal flood: two sessions, each sent FLOOD_REQUESTS requests with 15 KB of headers, under
//      --journal-bytes 16MiB: the bytes of the sessions' journals (MEMORY USAGE), of every key, and INFO's used_memory;
//   2. what each limit costs: a fault rule, a session made (POST /_sandbox/sessions) and a journal entry, in bytes
//      (MEMORY USAGE over many of each, divided).
// `node bench/redis-bytes.mjs` after `npm run build`.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from '@redis/client'
import { killChildren, launch, waitFor } from './children.mjs'
import { closeConnections, freePort, serve } from './servers.mjs'

const FLOOD_REQUESTS = Number(process.env.FLOOD_REQUESTS ?? 1_100)
const folder = mkdtempSync(join(tmpdir(), 'bench-call-sandbox-redis-bytes-'))

async function startRedis() {
  if (spawnSync('redis-server', ['--version']).error) throw new Error('redis-server is missing.')
  const port = await freePort()
  const child = launch('redis-server', ['test/support/durable-redis.conf', '--port', String(port), '--dir', folder])
  await waitFor(child, /Ready to accept connections/)
  return `redis://127.0.0.1:${port}`
}

/** @typedef {{ sendCommand(args: string[]): Promise<unknown> }} Client */

/**
 * Every key's MEMORY USAGE, summed, for the keys `match` finds.
 * @param {Client} client
 * @param {string} match
 */
async function bytesOf(client, match) {
  let total = 0
  let cursor = '0'
  do {
    const [next, keys] = /** @type {[string, string[]]} */ (
      await client.sendCommand(['SCAN', cursor, 'MATCH', match, 'COUNT', '1000'])
    )
    for (const key of keys) total += await usageOf(client, key)
    cursor = next
  } while (cursor !== '0')
  return total
}

/**
 * A key's MEMORY USAGE (0 when there is none).
 * @param {Client} client
 * @param {string} key
 */
async function usageOf(client, key) {
  return Number((await client.sendCommand(['MEMORY', 'USAGE', key, 'SAMPLES', '0'])) ?? 0)
}

/** @param {Client} client */
async function usedMemory(client) {
  return Number(/used_memory:(\d+)/.exec(String(await client.sendCommand(['INFO', 'memory'])))?.[1])
}

/**
 * Sends `count` requests, 16 at a time.
 * @param {string} url
 * @param {string} root
 * @param {number} count
 * @param {Record<string, string>} headers
 */
async function flood(url, root, count, headers) {
  let sent = 0
  const one = async () => {
    while (sent < count) {
      sent++
      const response = await fetch(`${url}${root}/v1/me`, {
        headers: { Authorization: 'Bearer sk_sandbox_all', ...headers },
      })
      await response.arrayBuffer()
    }
  }
  await Promise.all(Array.from({ length: 16 }, one))
}

/** @param {number} bytes */
const mb = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`

try {
  const redisUrl = await startRedis()
  const client = await createClient({ url: redisUrl }).connect()
  const { url } = await serve(['--store', redisUrl, '--journal-bytes', '16MiB'])
  const idle = await usedMemory(client)
  // 15 KB of headers, each under the kilobyte at which the journal cuts a value.
  const pad = Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`x-pad-${i}`, 'x'.repeat(1_000)]))
  await Promise.all([
    flood(url, '/sessions/flood-a', FLOOD_REQUESTS, pad),
    flood(url, '/sessions/flood-b', FLOOD_REQUESTS, pad),
  ])
  // The journal is sent in batches a few milliseconds apart: the last one is in Redis once a read of it answers.
  for (const name of ['flood-a', 'flood-b']) await fetch(`${url}/sessions/${name}/_sandbox/requests?limit=1`)
  // The fleet's total is fit a few milliseconds after the last batch: what Redis holds once it settled.
  await new Promise((resolve) => setTimeout(resolve, 500))
  const a = await bytesOf(client, 'call-sandbox:{flood-a}:journal')
  const b = await bytesOf(client, 'call-sandbox:{flood-b}:journal')
  const all = await bytesOf(client, '*')
  const journalsTally = await bytesOf(client, 'call-sandbox:{~journals}:*')
  const entries = Number(await client.sendCommand(['LLEN', 'call-sandbox:{flood-a}:journal']))
  console.log(
    `1. flood of ${FLOOD_REQUESTS} requests with 15 KB of headers on each of two sessions, --journal-bytes 16MiB:`,
  )
  console.log(
    `   journals ${mb(a)} + ${mb(b)} = ${mb(a + b)} (${entries} entries in flood-a, ${Math.round(a / entries)} B each)`,
  )
  console.log(`   the journals' tally (two sessions and the default one): ${journalsTally} B`)
  console.log(`   every key ${mb(all)}; used_memory ${mb(await usedMemory(client))} (${mb(idle)} before the flood)`)

  await client.sendCommand(['FLUSHALL'])
  const rules = 100
  for (let i = 0; i < rules; i++) {
    await fetch(`${url}/sessions/rules/_sandbox/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ path: `/v1/calls/${'x'.repeat(40)}${i}*`, status: 503, times: null }),
    })
  }
  const faults = await usageOf(client, 'call-sandbox:{rules}:faults')
  const rulesTally = await bytesOf(client, 'call-sandbox:{~rules}:*')
  const sessions = 200
  const before = await bytesOf(client, '*')
  for (let i = 0; i < sessions; i++)
    await fetch(`${url}/_sandbox/sessions`, {
      method: 'POST',
      body: '{}',
      headers: { 'Content-Type': 'application/json' },
    })
  const made = (await bytesOf(client, '*')) - before
  await client.sendCommand(['FLUSHALL'])
  await flood(url, '/sessions/plain', 1_000, {})
  await fetch(`${url}/sessions/plain/_sandbox/requests?limit=1`)
  const plain = await usageOf(client, 'call-sandbox:{plain}:journal')
  const plainEntries = Number(await client.sendCommand(['LLEN', 'call-sandbox:{plain}:journal']))
  const usage = await usageOf(client, 'call-sandbox:{plain}:usage')
  console.log('2. costs in Redis:')
  console.log(`   a fault rule (path of 44 characters): ${Math.round(faults / rules)} B (100 rules: ${faults} B)`)
  console.log(`   the rules' tally, one session holding rules: ${rulesTally} B`)
  console.log(
    `   a session made and never written to: ${Math.round(made / sessions)} B (${sessions} sessions: ${made} B)`,
  )
  console.log(
    `   a journal entry of a plain GET /v1/me: ${Math.round(plain / plainEntries)} B (${plainEntries} entries: ${plain} B)`,
  )
  console.log(`   the usage report of a session that used one key on one endpoint: ${usage} B`)
  client.destroy()
} finally {
  closeConnections()
  killChildren()
  rmSync(folder, { recursive: true, force: true })
}
