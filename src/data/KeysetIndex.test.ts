import { describe, expect, it } from 'vitest'
import { mulberry32 as random } from '../../test/support/prng.js'
import { compare, KeysetIndex, type KeysetPosition } from './KeysetIndex.js'

function shuffled<T>(items: readonly T[], next: () => number): T[] {
  const copy = items.slice()
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1))
    ;[copy[i], copy[j]] = [copy[j]!, copy[i]!]
  }
  return copy
}

/** Every id of the index in scan order. */
function ids(index: KeysetIndex, options: Parameters<KeysetIndex['scan']>[0] = {}): string[] {
  const seen: string[] = []
  index.scan(options, (id) => {
    seen.push(id)
    return true
  })
  return seen
}

/** The list order by brute force: newest first, ties by the greater id. */
function sortedIds(positions: readonly KeysetPosition[]): string[] {
  return positions
    .slice()
    .sort((a, b) => b.t - a.t || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .map(({ id }) => id)
}

function indexOf(positions: readonly KeysetPosition[]): KeysetIndex {
  const index = new KeysetIndex()
  for (const position of positions) index.insert(position)
  return index
}

const p = (t: number, id: string): KeysetPosition => ({ t, id })

describe('compare', () => {
  it.each([
    { a: p(2, 'a'), b: p(1, 'z'), sign: -1, why: 'the newer comes first, whatever the ids' },
    { a: p(1, 'z'), b: p(2, 'a'), sign: 1, why: 'the older comes after' },
    { a: p(5, 'b'), b: p(5, 'a'), sign: -1, why: 'at the same instant the greater id comes first' },
    { a: p(5, 'a'), b: p(5, 'b'), sign: 1, why: 'at the same instant the smaller id comes after' },
    { a: p(5, 'a'), b: p(5, 'a'), sign: 0, why: 'the same position is equal' },
    { a: p(5, 'ab'), b: p(5, 'a'), sign: -1, why: 'a longer id with the same prefix is greater' },
    { a: p(-1, 'a'), b: p(0, 'a'), sign: 1, why: 'negative instants order too' },
  ])('$why', ({ a, b, sign }) => {
    expect(Math.sign(compare(a, b))).toBe(sign)
    expect(Math.sign(compare(b, a))).toBe(-sign || 0)
  })
})

describe('KeysetIndex', () => {
  const positions = [p(100, 'c'), p(300, 'a'), p(200, 'b'), p(200, 'd'), p(100, 'a'), p(50, 'z')]
  const order = ['a', 'd', 'b', 'c', 'a', 'z'].join()

  it('lists newest first, ties by id descending', () => {
    const index = indexOf(positions)
    expect(ids(index).join()).toBe(order)
    expect(index.size).toBe(positions.length)
  })

  it('is empty at first: a scan visits nothing', () => {
    const index = new KeysetIndex()
    expect(index.size).toBe(0)
    expect(ids(index)).toEqual([])
    expect(ids(index, { after: p(1, 'a'), sinceMs: 0 })).toEqual([])
  })

  it('keeps list order whatever the order of 2,000 inserts, with many equal instants', () => {
    const next = random(20261120)
    const all: KeysetPosition[] = []
    const seenIds = new Set<string>()
    while (all.length < 2_000) {
      // Few distinct instants, so that most positions tie on `t` and order by id.
      const t = 1_700_000_000_000 + Math.floor(next() * 40) * 1_000
      const id = Math.floor(next() * 0xffffffff)
        .toString(16)
        .padStart(8, '0')
      if (seenIds.has(`${t} ${id}`)) continue
      seenIds.add(`${t} ${id}`)
      all.push(p(t, id))
    }
    const index = new KeysetIndex()
    const expected = sortedIds(all)
    for (const [i, position] of shuffled(all, next).entries()) {
      index.insert(position)
      // Check along the way too, not only at the end.
      if (i % 400 === 399) expect(index.size).toBe(i + 1)
    }
    expect(ids(index)).toEqual(expected)
  })

  describe('scan', () => {
    const index = indexOf(positions)

    it.each([
      { after: p(300, 'a'), expected: 'd,b,c,a,z', why: 'after the newest' },
      { after: p(200, 'd'), expected: 'b,c,a,z', why: 'after the first of a tie' },
      { after: p(200, 'b'), expected: 'c,a,z', why: 'after the last of a tie' },
      { after: p(50, 'z'), expected: '', why: 'after the oldest: nothing' },
      { after: p(200, 'c'), expected: 'b,c,a,z', why: 'after a position not in the index, inside a tie' },
      { after: p(200, 'z'), expected: 'd,b,c,a,z', why: 'after a position not in the index, before a tie' },
      { after: p(200, '0'), expected: 'c,a,z', why: 'after a position not in the index, past a tie' },
      { after: p(250, 'a'), expected: 'd,b,c,a,z', why: 'after an instant between two entries' },
      { after: p(1_000, 'a'), expected: order, why: 'after an instant newer than all' },
      { after: p(0, 'a'), expected: '', why: 'after an instant older than all' },
    ])('starts strictly $why', ({ after, expected }) => {
      expect(ids(index, { after }).join()).toBe(expected)
    })

    it.each([
      { sinceMs: 0, expected: order, why: 'older than all: every entry' },
      { sinceMs: 50, expected: 'a,d,b,c,a', why: 'equal to the oldest: not that one' },
      { sinceMs: 100, expected: 'a,d,b', why: 'equal to a tie: none of the tie' },
      { sinceMs: 150, expected: 'a,d,b', why: 'between two instants' },
      { sinceMs: 299, expected: 'a', why: 'just before the newest' },
      { sinceMs: 300, expected: '', why: 'equal to the newest: nothing' },
    ])('stops at entries not newer than sinceMs ($why)', ({ sinceMs, expected }) => {
      expect(ids(index, { sinceMs }).join()).toBe(expected)
    })

    it('combines after and sinceMs', () => {
      expect(ids(index, { after: p(300, 'a'), sinceMs: 100 }).join()).toBe('d,b')
      expect(ids(index, { after: p(100, 'c'), sinceMs: 100 }).join()).toBe('')
    })

    it('stops when visit returns false, after visiting that entry', () => {
      const seen: string[] = []
      index.scan({}, (id) => {
        seen.push(id)
        return seen.length < 3
      })
      expect(seen.join()).toBe('a,d,b')
    })

    it('walks every entry exactly once, page by page, with after = the last position of a page', () => {
      const next = random(7)
      const all = Array.from({ length: 300 }, (_, i) => p(Math.floor(next() * 20), `id${String(i).padStart(3, '0')}`))
      const big = indexOf(all)
      const byId = new Map(all.map((position) => [position.id, position]))
      for (const pageSize of [1, 7, 50, 299, 300, 301]) {
        const walked: string[] = []
        let after: KeysetPosition | undefined
        for (;;) {
          const page: string[] = []
          big.scan({ after }, (id) => {
            page.push(id)
            return page.length < pageSize
          })
          walked.push(...page)
          if (page.length < pageSize) break
          after = byId.get(page.at(-1)!)!
        }
        expect(walked, `page size ${pageSize}`).toEqual(sortedIds(all))
      }
    })
  })

  describe('remove', () => {
    it('removes exactly that entry, also one inside a tie', () => {
      const index = indexOf(positions)
      index.remove(p(200, 'd'))
      expect(ids(index).join()).toBe('a,b,c,a,z')
      expect(index.size).toBe(positions.length - 1)
      index.remove(p(100, 'a'))
      expect(ids(index).join()).toBe('a,b,c,z')
      index.remove(p(300, 'a'))
      expect(ids(index).join()).toBe('b,c,z')
    })

    it.each([
      { absent: p(200, 'c'), why: 'an id not in the index at a known instant' },
      { absent: p(150, 'a'), why: 'a known id at another instant' },
      { absent: p(1_000, 'a'), why: 'an instant newer than all' },
      { absent: p(0, 'a'), why: 'an instant older than all' },
    ])('ignores an absent position: $why', ({ absent }) => {
      const index = indexOf(positions)
      index.remove(absent)
      expect(ids(index).join()).toBe(order)
      expect(index.size).toBe(positions.length)
    })

    it('ignores a position removed twice, and removes from an empty index without a throw', () => {
      const index = indexOf(positions)
      index.remove(p(50, 'z'))
      index.remove(p(50, 'z'))
      expect(ids(index).join()).toBe('a,d,b,c,a')
      const empty = new KeysetIndex()
      expect(() => empty.remove(p(1, 'a'))).not.toThrow()
      expect(empty.size).toBe(0)
    })

    it('keeps list order through random inserts and removes', () => {
      const next = random(42)
      const index = new KeysetIndex()
      const present = new Map<string, KeysetPosition>()
      for (let step = 0; step < 3_000; step++) {
        const position = p(Math.floor(next() * 10), `k${Math.floor(next() * 200)}`)
        const key = `${position.t} ${position.id}`
        if (present.has(key) || next() < 0.3) {
          index.remove(position)
          present.delete(key)
        } else {
          index.insert(position)
          present.set(key, position)
        }
      }
      expect(ids(index)).toEqual(sortedIds([...present.values()]))
      expect(index.size).toBe(present.size)
    })
  })

  describe('load', () => {
    it('sorts positions given in any order, and replaces what was there', () => {
      const index = indexOf([p(999, 'old')])
      index.load(shuffled(positions, random(3)))
      expect(ids(index).join()).toBe(order)
      expect(index.size).toBe(positions.length)
    })

    it('does not keep the array it was given: later changes to it do not reach the index', () => {
      const given = positions.slice()
      const index = new KeysetIndex()
      index.load(given)
      given.push(p(1_000, 'late'))
      given.reverse()
      expect(ids(index).join()).toBe(order)
    })

    it('loads 2,000 random positions into the order that inserts give', () => {
      const next = random(99)
      const all = Array.from({ length: 2_000 }, (_, i) =>
        p(Math.floor(next() * 30), `${Math.floor(next() * 1e6)}-${i}`),
      )
      const loaded = new KeysetIndex()
      loaded.load(all)
      expect(ids(loaded)).toEqual(sortedIds(all))
      expect(ids(loaded)).toEqual(ids(indexOf(shuffled(all, next))))
    })

    it('keeps list order for inserts after a load', () => {
      const index = new KeysetIndex()
      index.load(positions)
      index.insert(p(200, 'c'))
      index.insert(p(400, 'a'))
      index.insert(p(10, 'a'))
      expect(ids(index).join()).toBe('a,a,d,c,b,c,a,z,a')
    })
  })
})
