import { describe, expect, it } from 'vitest'
import { boundedQuery, pastTheBound } from './queryBound.js'

const pairs = (count: number) => Array.from({ length: count }, (_, i) => `a${i}=${i}`)

describe('pastTheBound', () => {
  it('counts the pieces URLSearchParams keeps, empty ones not', () => {
    for (const search of ['', '?', `?${pairs(100).join('&')}`, `?&&${pairs(100).join('&&&')}&`, '?=&'.repeat(100)]) {
      expect(pastTheBound(search), search.slice(0, 40)).toBe(-1)
      expect(new URLSearchParams(search).size).toBeLessThanOrEqual(100)
    }
    for (const search of [
      `?${pairs(101).join('&')}`,
      `?${'='.repeat(3)}&`.repeat(101),
      `?${Array(7_000).fill('x').join('&')}`,
    ])
      expect(new URLSearchParams(search.slice(0, pastTheBound(search))).size, search.slice(0, 40)).toBe(100)
  })
})

describe('boundedQuery', () => {
  it("gives the URL's own parameters when within the bound, else the first 100 and truncated", () => {
    const within = new URL(`http://sandbox/v1/calls?${pairs(100).join('&')}#${pairs(300).join('&')}`)
    expect(boundedQuery(within)).toEqual({ params: within.searchParams, truncated: false })
    expect(boundedQuery(within).params).toBe(within.searchParams)
    const past = boundedQuery(new URL(`http://sandbox/v1/calls?${pairs(101).join('&')}`))
    expect(past.truncated).toBe(true)
    expect([...past.params]).toEqual(pairs(100).map((pair) => pair.split('=')))
  })
})
