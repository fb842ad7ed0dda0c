// Benchmarks of the built package (run `npm run bench`, which builds first).
// Figures are reported against a baseline measured in the same run, so they
// compare on any machine: seeding per call (linear?), a page and a reset at
// 100,000 calls against the same at the default world's 300 (flat?). The
// start-up, the servers and the consumer's figures are in baselines.mjs.
import { answer, createSandbox } from 'call-sandbox'
import { median } from './median.mjs'

const NOW = '2026-11-20T12:00:00Z'
const KEY = { Authorization: 'Bearer sk_sandbox_all' }
// Run with --expose-gc (npm run bench does): without it, this throws rather than measuring without a GC.
const collectGarbage = /** @type {() => void} */ (globalThis.gc)

/**
 * Median milliseconds of `fn`, or of what it returns when it times a part of itself.
 * @param {() => Promise<unknown>} fn
 * @param {number} runs
 */
async function time(fn, runs) {
  /** @type {number[]} */
  const samples = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    const part = await fn()
    samples.push(typeof part === 'number' ? part : performance.now() - start)
  }
  return median(samples)
}

/** @param {number | undefined} calls */
async function seeded(calls) {
  const start = performance.now()
  const sandbox = createSandbox({ now: NOW, calls })
  await sandbox.ready
  return { sandbox, ms: performance.now() - start }
}

/** @param {import('call-sandbox').SandboxWithHandlers} sandbox @param {string} path */
async function get(sandbox, path) {
  const response = await answer(sandbox, new Request(`http://bench.local${path}`, { headers: KEY }))
  if (response?.status !== 200) throw new Error(`${path}: ${response?.status}`)
  return response.json()
}

/** @type {Record<string, string>[]} */
const rows = []
/** @param {string} what @param {number} ms @param {number | undefined} baseline */
const row = (what, ms, baseline, note = '') =>
  rows.push({
    what,
    ms: ms.toFixed(2),
    'x baseline': baseline === undefined ? '1.00 (baseline)' : (ms / baseline).toFixed(2),
    note,
  })

// Seeding: cost per call at three sizes.
const small = await seeded(undefined)
const medium = await seeded(10_000)
const large = await seeded(100_000)
/** @param {{ ms: number }} run @param {number} calls */
const perCall = (run, calls) => run.ms / calls
row('seed default world (300 + 40 calls)', small.ms, undefined)
row(
  'seed 10,000 calls: per call',
  perCall(medium, 10_040),
  perCall(small, 340),
  `total ${(medium.ms / 1000).toFixed(2)} s`,
)
row(
  'seed 100,000 calls: per call',
  perCall(large, 100_040),
  perCall(small, 340),
  `total ${(large.ms / 1000).toFixed(2)} s`,
)

// A page: at 100,000 calls against the default world.
/** @param {import('call-sandbox').SandboxWithHandlers} sandbox */
const deepCursor = async (sandbox) => {
  let page = await get(sandbox, '/v1/calls?limit=100')
  page = await get(sandbox, `/v1/calls?limit=100&cursor=${page.next_cursor}`)
  return page.next_cursor
}
/** @type {[string, (cursor: string) => string][]} */
const pages = [
  ['GET /v1/calls?limit=50', () => '/v1/calls?limit=50'],
  ['GET /v1/calls?limit=100', () => '/v1/calls?limit=100'],
  ['GET /v1/calls?status=forwarding', () => '/v1/calls?status=forwarding'],
  ['GET /v1/calls?limit=100&cursor=(after 200)', (cursor) => `/v1/calls?limit=100&cursor=${cursor}`],
  ['GET /v1/leads?urgency=high&status=new', () => '/v1/leads?urgency=high&status=new'],
]
const smallCursor = await deepCursor(small.sandbox)
const largeCursor = await deepCursor(large.sandbox)
for (const [what, path] of pages) {
  for (let i = 0; i < 50; i++) await get(small.sandbox, path(smallCursor))
  const base = await time(() => get(small.sandbox, path(smallCursor)), 200)
  for (let i = 0; i < 50; i++) await get(large.sandbox, path(largeCursor))
  const big = await time(() => get(large.sandbox, path(largeCursor)), 200)
  row(`${what}: default world`, base, undefined)
  row(`${what}: 100,000 calls`, big, base)
}

// reset(): nothing written, and after ten writes (five calls, five contacts).
/** @param {import('call-sandbox').SandboxWithHandlers} sandbox */
const write = async (sandbox) => {
  for (let i = 0; i < 5; i++) await sandbox.addCall()
  for (let i = 0; i < 5; i++) await sandbox.addContact({ phone: `+1415555${String(1000 + i)}` })
}
/** @type {Record<string, { clean: number, writes: number, reset: number }>} */
const resets = {}
for (const [name, { sandbox }] of /** @type {const} */ ([
  ['default world', small],
  ['100,000 calls', large],
])) {
  resets[name] = {
    clean: await time(() => sandbox.reset(), 20),
    writes: await time(() => write(sandbox).then(() => sandbox.reset()), 5),
    reset: await time(async () => {
      await write(sandbox)
      const start = performance.now()
      await sandbox.reset()
      return performance.now() - start
    }, 5),
  }
}
const base = resets['default world'] ?? { clean: NaN, writes: NaN, reset: NaN }
for (const [name, { clean, writes, reset }] of Object.entries(resets)) {
  row(`reset(), nothing written: ${name}`, clean, name === 'default world' ? undefined : base.clean)
  row(`reset() after 10 writes: ${name}`, reset, name === 'default world' ? undefined : base.reset)
  row(`10 writes and reset(): ${name}`, writes, name === 'default world' ? undefined : base.writes)
}

// The journal after 10,000 requests: bounded at its size, and the heap it keeps.
const heap = () => {
  collectGarbage()
  return process.memoryUsage().heapUsed
}
const journaled = createSandbox({ now: NOW })
await journaled.ready
const before = heap()
for (let i = 0; i < 10_000; i++)
  await get(journaled, `/v1/calls?limit=1&since=2026-11-${String(1 + (i % 19)).padStart(2, '0')}`)
const after = heap()
rows.push({
  what: 'journal after 10,000 requests',
  ms: '',
  'x baseline': '',
  note: `${journaled.journal.size} entries kept; heap +${((after - before) / 1024 / 1024).toFixed(2)} MB`,
})

console.table(rows)
