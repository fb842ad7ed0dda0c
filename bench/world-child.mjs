// A child of the large-world figure (large-world.mjs): one world of CALLS calls and its writes, printed as JSON. Run
// with --expose-gc, so that its RSS is measured after a GC.
//
//   node --expose-gc bench/world-child.mjs CALLS
import { setTimeout as sleep } from 'node:timers/promises'
import { median } from './median.mjs'
import { AUTH, ENTRY, NOW } from './shared.mjs'

const calls = Number(process.argv[2])
const gc = /** @type {() => void} */ (globalThis.gc)
const { answer, createSandbox } = await import(ENTRY)
const start = performance.now()
const sandbox = createSandbox({ now: NOW, calls })
await sandbox.ready
const seedMs = performance.now() - start
const response = await answer(
  sandbox,
  new Request('http://bench.local/v1/contacts?limit=1', { headers: { Authorization: AUTH } }),
)
const knownPhone = (await response.json()).data[0].phone
/** @param {(i: number) => unknown} write */
const timed = async (write, runs = 21) => {
  /** @type {number[]} */
  const samples = []
  for (let i = 0; i < runs; i++) {
    const begin = performance.now()
    await write(i)
    samples.push(performance.now() - begin)
  }
  await sandbox.reset()
  return median(samples)
}
await timed((i) => sandbox.addContact({ phone: `+1415556${String(1000 + i)}` }), 5) // warm-up
const addContact = await timed((i) => sandbox.addContact({ phone: `+1415556${String(1000 + i)}` }))
const addKnownCall = await timed(() => sandbox.addCall({ caller_phone: knownPhone }))
/** @type {number[]} */
const resets = []
for (let run = 0; run < 5; run++) {
  for (let i = 0; i < 5; i++) await sandbox.addCall()
  for (let i = 0; i < 5; i++) await sandbox.addContact({ phone: `+1415557${String(1000 + i)}` })
  const begin = performance.now()
  await sandbox.reset()
  resets.push(performance.now() - begin)
}
gc()
const { rss, heapUsed } = process.memoryUsage()
// Right after a GC, the pages it freed are still being handed back to the
// system (V8 unmaps them on other threads): the RSS a second later, after
// another GC, is what holding the world costs.
await sleep(2_000)
gc()
const settled = process.memoryUsage()
process.stdout.write(
  JSON.stringify({
    calls: sandbox.db.count('calls'),
    seedMs,
    addContact,
    addKnownCall,
    reset: median(resets),
    rssAfterGc: rss,
    rss: settled.rss,
    heap: settled.heapUsed,
    heapAfterGc: heapUsed,
  }),
)
