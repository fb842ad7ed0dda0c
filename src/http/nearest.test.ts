import { describe, expect, it } from 'vitest'
import { mulberry32 } from '../../test/support/prng.js'
import { type EditWork, editDistanceWithin, nearest } from './nearest.js'

/** The reference: the full Levenshtein table, every cell of it. */
function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution))
    }
    previous = current
  }
  return previous[b.length]!
}

/** The reference nearest: every distance in full, the first of the nearest, then its own allowance. */
function referenceNearest(given: string, candidates: readonly string[], most?: number): string | undefined {
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const candidate of candidates) {
    const distance = levenshtein(given.toLowerCase(), candidate.toLowerCase())
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  if (best === undefined) return undefined
  return bestDistance <= (most ?? Math.max(1, Math.floor(best.length / 3))) ? best : undefined
}

function strings(seed: number) {
  const next = mulberry32(seed)
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1))
  // A small alphabet, so that random strings share enough to be near; upper case and İ for the case folding.
  const alphabet = 'abcAB/_İ'
  const text = (length: number) => Array.from({ length }, () => alphabet[int(0, alphabet.length - 1)]).join('')
  /** A string near `base`: a few random edits of it. */
  const near = (base: string) => {
    let edited = base
    for (let edits = int(0, 4); edits > 0; edits--) {
      const at = int(0, edited.length)
      const kind = int(0, 2)
      if (kind === 0) edited = edited.slice(0, at) + text(1) + edited.slice(at)
      else if (kind === 1) edited = edited.slice(0, at) + edited.slice(at + 1)
      else edited = edited.slice(0, at) + text(1) + edited.slice(at + 1)
    }
    return edited
  }
  return { int, text, near }
}

describe('editDistanceWithin', () => {
  it('is the Levenshtein distance whenever that is within the bound, and undefined otherwise', () => {
    const { int, text, near } = strings(1)
    for (let i = 0; i < 3_000; i++) {
      const a = text(int(0, 14))
      const b = i % 2 === 0 ? near(a) : text(int(0, 14))
      const most = int(0, 6)
      const distance = levenshtein(a, b)
      expect(editDistanceWithin(a, b, most), `${a} → ${b} within ${most}`).toBe(distance <= most ? distance : undefined)
    }
  })

  it('costs nothing for lengths further apart than the bound, and a band of the table otherwise', () => {
    const work: EditWork = { cells: 0 }
    expect(editDistanceWithin('a'.repeat(10_000_000), '/v1/calls', 2, work)).toBeUndefined()
    expect(work.cells).toBe(0)
    // Two long strings of the same length: a row costs at most 2 × 2 + 1 cells, not 60,000.
    const long = 'a'.repeat(60_000)
    expect(editDistanceWithin(long, `b${long.slice(2)}b`, 2, work)).toBe(2)
    expect(work.cells).toBeLessThanOrEqual(60_000 * 5)
  })

  it('stops at the first row past the bound', () => {
    const work: EditWork = { cells: 0 }
    expect(editDistanceWithin('x'.repeat(5_000), 'y'.repeat(5_000), 2, work)).toBeUndefined()
    // Every cell of the third row is three edits away at least.
    expect(work.cells).toBeLessThanOrEqual(3 * 5)
  })
})

describe('nearest', () => {
  it('answers as the full search does over random candidates and inputs', () => {
    const { int, text, near } = strings(2)
    for (let i = 0; i < 2_000; i++) {
      const candidates = Array.from({ length: int(0, 6) }, () => text(int(1, 12)))
      const given =
        candidates.length > 0 && i % 3 !== 0 ? near(candidates[int(0, candidates.length - 1)]!) : text(int(0, 14))
      const most = i % 2 === 0 ? undefined : int(0, 4)
      expect(nearest(given, candidates, most), `${given} among ${candidates.join(', ')} within ${most}`).toBe(
        referenceNearest(given, candidates, most),
      )
    }
  })

  it.each([
    { given: '/v1/call', candidates: ['/v1/calls', '/v1/contacts'], expected: '/v1/calls' },
    { given: 'LIMIT', candidates: ['limit', 'cursor'], expected: 'limit' },
    { given: 'lmit', candidates: ['limit', 'since'], expected: 'limit' },
    { given: 'offset', candidates: ['limit', 'cursor', 'since'], expected: undefined },
  ])('suggests $expected for $given', ({ given, candidates, expected }) => {
    expect(nearest(given, candidates)).toBe(expected)
  })

  it('suggests nothing for an input far longer than every candidate, whatever its length', () => {
    expect(nearest(`/v1/calls${'a'.repeat(10_000_000)}`, ['/v1/calls', '/v1/contacts'], 2)).toBeUndefined()
    expect(nearest(`limit${'x'.repeat(60_000)}`, ['limit', 'cursor'])).toBeUndefined()
  })
})
