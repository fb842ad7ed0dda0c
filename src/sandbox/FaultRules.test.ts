import { describe, expect, it } from 'vitest'
import { MemoryRuleBook } from './FaultRules.js'

const DRAWS = 10_000
const REQUEST = { method: 'GET', path: '/v1/me', key: undefined }

/** Whether each of a rule's `DRAWS` matches met it, at `probability`, under `seed`. */
async function runOf(seed: number, probability: number): Promise<boolean[]> {
  const book = new MemoryRuleBook()
  await book.add({ path: '/v1/me', status: 500, after: 0, times: null, probability })
  const met: boolean[] = []
  for (let i = 0; i < DRAWS; i++) met.push((await book.take(REQUEST, seed)) !== undefined)
  return met
}

function longestRunOf(met: boolean[], value: boolean): number {
  let longest = 0
  let run = 0
  for (const each of met) {
    run = each === value ? run + 1 : 0
    longest = Math.max(longest, run)
  }
  return longest
}

/**
 * The longest run of outcomes of chance `chance` that honest draws exceed once in a million: a run of L starts at
 * one of `DRAWS` places with chance `chance ** L` each, so the chance of any run of L is below DRAWS * chance ** L.
 * (The longest run expected is about log(DRAWS) / log(1 / chance): 13 at 0.5, 66 at 0.9.)
 */
const longestAllowed = (chance: number) => Math.ceil(Math.log(DRAWS / 1e-6) / Math.log(1 / chance))

/**
 * How far the outcome of each match goes with the outcome of the one before: the chi-square of the 2 × 2 table of
 * (this one met, the next one met) against independent draws at the rates seen. Honest draws stay under 23.93 (one
 * degree of freedom) 999,999 times in a million. Rates and runs alone pass draws that are not random at all: a
 * golden-ratio sequence, (n · 0.618…) mod 1, has the right rate and no long run, and scores over 100 here.
 */
function dependenceOf(met: boolean[]): number {
  const table = [
    [0, 0],
    [0, 0],
  ]
  for (let i = 1; i < met.length; i++) table[Number(met[i - 1])]![Number(met[i])]!++
  const pairs = met.length - 1
  let chiSquare = 0
  for (const before of [0, 1])
    for (const after of [0, 1]) {
      const expected = ((table[before]![0]! + table[before]![1]!) * (table[0]![after]! + table[1]![after]!)) / pairs
      chiSquare += (table[before]![after]! - expected) ** 2 / expected
    }
  return chiSquare
}

describe('a fault rule drawn at its probability', () => {
  // Rates within 2 points: at 0.5, four standard deviations of 10,000 honest draws (0.5 points each).
  it.each(
    [1, 42, 20240601, 987654321, Number.MAX_SAFE_INTEGER].flatMap((seed) => [0.1, 0.5, 0.9].map((p) => [seed, p])),
  )(
    'under seed %s, meets about %s of the matches, with no run longer than honest draws give, each match drawn apart',
    async (seed, probability) => {
      const met = await runOf(seed, probability)
      const rate = met.filter(Boolean).length / DRAWS
      expect(Math.abs(rate - probability)).toBeLessThanOrEqual(0.02)
      expect(longestRunOf(met, true)).toBeLessThanOrEqual(longestAllowed(probability))
      expect(longestRunOf(met, false)).toBeLessThanOrEqual(longestAllowed(1 - probability))
      expect(dependenceOf(met)).toBeLessThan(23.93)
    },
  )

  it('draws the same run again under the same seed, and another under another seed', async () => {
    expect(await runOf(7, 0.5)).toEqual(await runOf(7, 0.5))
    expect(await runOf(8, 0.5)).not.toEqual(await runOf(7, 0.5))
  })
})
