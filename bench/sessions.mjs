// Sessions (npm run bench runs it after run.mjs): a new session's first answer
// against one seeding of the default world, the cost of a session path against
// the bare root, and the memory of many sessions against the cap.
import { execFileSync } from 'node:child_process'
import { answer, createSandbox } from 'call-sandbox'
import { median } from './median.mjs'

const NOW = '2026-11-20T12:00:00Z'
const KEY = { Authorization: 'Bearer sk_sandbox_all' }
// Run with --expose-gc (npm run bench does): without it, this throws rather than measuring without a GC.
const collectGarbage = /** @type {() => void} */ (globalThis.gc)
/** @param {number} bytes */
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MB`
/** RSS and heap after a full collection. */
const memory = () => {
  collectGarbage()
  const { rss, heapUsed } = process.memoryUsage()
  return `${mb(rss)} (heap ${mb(heapUsed)})`
}

/**
 * @param {import('call-sandbox').SandboxWithHandlers} sandbox
 * @param {string} path
 * @param {{ method?: string, headers?: Record<string, string>, body?: string }} [init]
 */
async function ask(sandbox, path, init = {}) {
  const response = await answer(
    sandbox,
    new Request(`http://bench.local${path}`, { ...init, headers: { ...KEY, ...init.headers } }),
    sandbox.sessions,
  )
  if (!response || response.status >= 300) throw new Error(`${path}: ${response?.status} ${await response?.text()}`)
  return response.text()
}

/** @type {Record<string, string>[]} */
const rows = []
/** @param {string} what @param {number} value @param {number | undefined} baseline */
const row = (what, value, baseline, note = '') =>
  rows.push({
    what,
    value: value.toFixed(2),
    'x baseline': baseline === undefined ? '1.00 (baseline)' : (value / baseline).toFixed(2),
    note,
  })

if (process.argv[2] === 'memory') {
  await memoryFigure(process.argv[3])
  process.stdout.write(JSON.stringify(rows))
  process.exit(0)
}

// A new session's first answer, against seeding the default world and answering the same page; interleaved.
const server = createSandbox({ now: NOW })
await ask(server, '/v1/calls?limit=50')
const seedings = []
const firsts = []
for (let i = 0; i < 15; i++) {
  // A seed not seen before: the world is generated and loaded, as the first world of a process is.
  let start = performance.now()
  const fresh = createSandbox({ now: NOW, seed: 1_000 + i })
  await ask(fresh, '/v1/calls?limit=50')
  seedings.push(performance.now() - start)
  start = performance.now()
  await ask(server, `/sessions/first-${i}/v1/calls?limit=50`)
  firsts.push(performance.now() - start)
}
row('seed a default-sized world and answer GET /v1/calls?limit=50 (ms)', median(seedings), undefined)
row(
  "a new session's first answer, GET /sessions/{new}/v1/calls?limit=50 (ms)",
  median(firsts),
  median(seedings),
  'goal <= 1.5x',
)

// Per request: a session path against the bare root, same page, in alternating batches.
/** @param {string} path */
const batch = async (path) => {
  const start = performance.now()
  for (let i = 0; i < 200; i++) await ask(server, path)
  return (performance.now() - start) / 200
}
const roots = []
const sessionPaths = []
for (let i = 0; i < 20; i++) {
  roots.push(await batch('/v1/calls?limit=50'))
  sessionPaths.push(await batch('/sessions/first-0/v1/calls?limit=50'))
}
row('GET /v1/calls?limit=50 at the bare root (ms)', median(roots), undefined)
row('GET /sessions/{name}/v1/calls?limit=50 (ms)', median(sessionPaths), median(roots), 'goal <= 1.05x')

for (const which of ['writes', 'flood']) {
  rows.push(
    ...JSON.parse(
      execFileSync(process.execPath, ['--expose-gc', import.meta.filename, 'memory', which], {
        encoding: 'utf8',
        maxBuffer: 1 << 20,
      }),
    ),
  )
}
console.table(rows)

/** A memory figure, in a process of its own so that no other figure's worlds are in its heap. */
/** @param {string | undefined} which */
async function memoryFigure(which) {
  if (which === 'writes') {
    // 1,000 sessions used in turn, each writing a contact, so each is put away (not forgotten) past the cap.
    const capped = createSandbox({ now: NOW, maxSessions: 200 })
    await ask(capped, '/v1/me')
    const idle = memory()
    const samples = []
    for (let i = 1; i <= 1_000; i++) {
      await ask(capped, `/sessions/user-${i}/v1/contacts`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ phone: '+14155550100' }),
      })
      if (i % 200 === 0) samples.push(`${i}: ${memory()}`)
    }
    rows.push({
      what: '1,000 sessions used in turn (a write each), --max-sessions 200: RSS',
      value: '',
      'x baseline': '',
      note: `idle ${idle}; ${samples.join(', ')} (goal < 1 GB, flat after the cap)`,
    })
    return
  }
  // A flood of distinct names that only read: each put away keeps its journal entry and usage count, no world.
  const flooded = createSandbox({ now: NOW, maxSessions: 200 })
  await ask(flooded, '/v1/me')
  const samples = []
  const start = performance.now()
  for (let i = 1; i <= 10_000; i++) {
    await ask(flooded, `/sessions/flood-${i}/v1/me`)
    if (i % 2_000 === 0) samples.push(`${i}: ${memory()}`)
  }
  rows.push({
    what: '10,000 distinct session names (a read each), --max-sessions 200: RSS',
    value: '',
    'x baseline': '',
    note: `${samples.join(', ')}; ${flooded.sessions.list().length - 1} sessions listed; ${((performance.now() - start) / 10_000).toFixed(1)} ms a name (goal: flat after the cap)`,
  })
}
