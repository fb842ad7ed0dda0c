// 5. 100,000 calls against the default world: seed, one write, reset() after 10 writes and RSS, each world in a
// process of its own (world-child.mjs), so that its RSS is the world's.
import { join } from 'node:path'
import { benchFigure, megabytes, millis, ROOT, row, run, seconds } from './shared.mjs'

/**
 * What world-child.mjs measured of one world.
 * @typedef {{ calls: number, seedMs: number, addContact: number, addKnownCall: number, reset: number, rss: number, rssAfterGc: number, heap: number }} World
 */

await benchFigure('large-world', async () => {
  /** @param {number} calls @returns {Promise<World>} */
  const world = async (calls) =>
    JSON.parse(
      await run(process.execPath, [
        '--expose-gc',
        '--max-old-space-size=4096',
        join(ROOT, 'bench/world-child.mjs'),
        String(calls),
      ]),
    )
  const small = await world(300)
  const large = await world(100_000)
  /** @param {World} figures */
  const perCall = (figures) => figures.seedMs / figures.calls
  /** @param {number} value @param {number} bound @param {string} text */
  const atMost = (value, bound, text) => `<= ${text} (${value <= bound ? 'met' : 'missed'})`
  row(
    'seed 100,000 calls (per call)',
    `${seconds(large.seedMs)} (${millis(perCall(large))} a call)`,
    `default world (${small.calls} calls): ${millis(small.seedMs)} (${millis(perCall(small))} a call)`,
    perCall(large) / perCall(small),
    atMost(large.seedMs, 3000, '3 s'),
  )
  row(
    'one write at 100,000 calls: addContact, a new caller (median of 21)',
    millis(large.addContact),
    `default world: ${millis(small.addContact)}`,
    large.addContact / small.addContact,
    atMost(large.addContact, 1, '1 ms'),
  )
  row(
    'one write at 100,000 calls: addCall from a known caller, who changes (median of 21)',
    millis(large.addKnownCall),
    `default world: ${millis(small.addKnownCall)}`,
    large.addKnownCall / small.addKnownCall,
    atMost(large.addKnownCall, 1, '1 ms'),
  )
  row(
    'reset() after 10 writes at 100,000 calls (median of 5)',
    millis(large.reset),
    `default world: ${millis(small.reset)}`,
    large.reset / small.reset,
    atMost(large.reset, 5, '5 ms'),
  )
  row(
    'RSS of a process holding the 100,000-call world (2 s after a GC, after another)',
    `${megabytes(large.rss)} (heap ${megabytes(large.heap)}; right after the first GC ${megabytes(large.rssAfterGc)})`,
    `default world: ${megabytes(small.rss)} (heap ${megabytes(small.heap)})`,
    large.rss / small.rss,
    atMost(large.rss, 450 * 1024 * 1024, '450 MB'),
  )
})
