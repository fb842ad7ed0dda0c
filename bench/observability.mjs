// What watching the sandbox costs (issue 22), against baselines of the same run:
//   1. metrics: reads/s of the command with /_sandbox/metrics counting every answer, against --no-metrics
//      (rounds interleaved, median);
//   2. the journal's memory after 10,000 requests with bodies (2 KiB each way), in process: the heap it holds
//      after a forced GC, against the same sandbox before them; it must stay bounded (--journal-size, 32 MiB).
import { answer, createSandbox } from 'call-sandbox'
import { killChildren, stop } from './children.mjs'
import { median } from './median.mjs'
import { closeConnections, NOW, readRate, serve } from './servers.mjs'

const HEADERS = { Authorization: 'Bearer sk_sandbox_all' }
const ROUNDS = 3

async function journalMemory() {
  const sandbox = createSandbox({ now: NOW })
  await sandbox.ready
  const heap = () => {
    globalThis.gc?.()
    return process.memoryUsage().heapUsed
  }
  const before = heap()
  const notes = 'n'.repeat(1_900)
  for (let i = 0; i < 10_000; i++) {
    const body = JSON.stringify({ phone: `+1${String(3_000_000_000 + i)}`, notes })
    const request = new Request('http://bench.local/v1/contacts', {
      method: 'POST',
      headers: { ...HEADERS, 'Content-Type': 'application/json' },
      body,
    })
    const response = await answer(sandbox, request)
    if (response?.status !== 201) throw new Error(`POST /v1/contacts: ${response?.status}`)
    await response.arrayBuffer()
  }
  const after = heap()
  return { journal: sandbox.journal, grown: after - before }
}

async function main() {
  const rows = []
  const counted = await serve([])
  const plain = await serve(['--no-metrics'])
  /** @type {number[][]} */
  const [withRates = [], withoutRates = []] = [[], []]
  for (let round = 0; round < ROUNDS; round++) {
    withoutRates.push(await readRate([plain.url]))
    withRates.push(await readRate([counted.url]))
  }
  const [withMetrics, without] = [median(withRates), median(withoutRates)]
  rows.push({
    what: 'metrics: reads/s without them, against with them (how much a count costs)',
    value: without.toFixed(0),
    baseline: withMetrics.toFixed(0),
    ratio: `${(without / withMetrics).toFixed(3)}x`,
    'per request': `${((1 / withMetrics - 1 / without) * 1e6).toFixed(1)} µs`,
  })
  await stop(counted.child)
  await stop(plain.child)
  const { journal, grown } = await journalMemory()
  rows.push({
    what: 'journal after 10,000 POSTs with 2 KiB bodies: entries kept, their bytes, the heap grown (records too)',
    value: `${journal.size} entries, ${(journal.bytes / 1024 / 1024).toFixed(1)} MiB`,
    baseline: `cap ${journal.capacity} entries, ${journal.budget.maxBytes / 1024 / 1024} MiB`,
    ratio: '',
    'per request': `${(grown / 1024 / 1024).toFixed(1)} MiB heap grown in all`,
  })
  console.table(rows)
}

try {
  await main()
} finally {
  closeConnections()
  killChildren()
}
