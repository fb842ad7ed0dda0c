import { describe, expect, it } from 'vitest'
import { LruMap } from './LruMap.js'

function mapOf(capacity: number, ...keys: string[]): LruMap<string, number> {
  const map = new LruMap<string, number>(capacity)
  for (const [index, key] of keys.entries()) map.set(key, index)
  return map
}

describe('LruMap', () => {
  it('keeps the newest entries up to its capacity, letting the least recently set go', () => {
    const map = mapOf(2, 'a', 'b', 'c')
    expect([...map.keys()]).toEqual(['b', 'c'])
    expect(map.size).toBe(2)
    expect(map.get('a')).toBeUndefined()
    expect(map.get('c')).toBe(2)
  })

  it('makes an entry it was asked for the newest, so the next one past the capacity is another', () => {
    const map = mapOf(2, 'a', 'b')
    expect(map.get('a')).toBe(0)
    map.set('c', 2)
    expect([...map.keys()]).toEqual(['a', 'c'])
  })

  it('keeps the order right through gets of the newest, of another, and after the newest is deleted', () => {
    const map = mapOf(3, 'a', 'b', 'c')
    expect(map.get('c')).toBe(2) // already the newest
    expect([...map.keys()]).toEqual(['a', 'b', 'c'])
    expect(map.get('a')).toBe(0)
    expect(map.get('c')).toBe(2) // the newest when set, no longer since a was asked for
    expect([...map.keys()]).toEqual(['b', 'a', 'c'])
    map.delete('c')
    expect(map.get('b')).toBe(1)
    expect([...map.keys()]).toEqual(['a', 'b'])
    map.set('d', 3).set('e', 4)
    expect([...map.keys()]).toEqual(['b', 'd', 'e'])
  })

  it('makes an entry set again the newest, with its new value, and counts it once', () => {
    const map = mapOf(2, 'a', 'b')
    map.set('a', 10)
    expect([...map.keys()]).toEqual(['b', 'a'])
    expect(map.size).toBe(2)
    map.set('c', 2)
    expect([...map.keys()]).toEqual(['a', 'c'])
    expect(map.get('a')).toBe(10)
  })

  it('tells whether it keeps a key without changing which goes next', () => {
    const map = mapOf(2, 'a', 'b')
    expect(map.has('a')).toBe(true)
    expect(map.has('z')).toBe(false)
    map.set('c', 2)
    expect([...map.keys()]).toEqual(['b', 'c'])
  })

  it('keeps an undefined value as a value, and finds it', () => {
    const map = new LruMap<string, undefined>(2)
    map.set('a', undefined).set('b', undefined)
    expect(map.get('a')).toBeUndefined()
    map.set('c', undefined)
    expect([...map.keys()]).toEqual(['a', 'c'])
  })

  it('lets an entry go on delete, and says whether it had it', () => {
    const map = mapOf(3, 'a', 'b')
    expect(map.delete('a')).toBe(true)
    expect(map.delete('a')).toBe(false)
    expect([...map.keys()]).toEqual(['b'])
  })

  it.each([0, -1, 1.5, Number.NaN])('refuses a capacity of %s', (capacity) => {
    expect(() => new LruMap(capacity)).toThrow(/capacity must be an integer from 1/)
  })

  it('drops the least recently used while the weights are over maxWeight, but never the most recent', () => {
    const cache = new LruMap<string, string>(10, 100)
    for (const key of ['a', 'b', 'c']) cache.set(key, key.toUpperCase())
    cache.weigh('a', 'A', 40)
    cache.weigh('b', 'B', 40)
    expect(cache.weight).toBe(80)
    cache.weigh('c', 'C', 40)
    expect(cache.size).toBe(2)
    expect(cache.weight).toBe(80)
    expect(cache.get('a')).toBeUndefined()
    cache.set('d', 'D')
    cache.weigh('d', 'D', 500)
    expect(cache.size).toBe(1)
    expect(cache.get('d')).toBe('D')
    expect(cache.weight).toBe(500)
  })

  it('weighs and deletes a key only while it holds the value given', () => {
    const cache = new LruMap<string, string>(4, 100)
    cache.set('a', 'first')
    cache.set('a', 'second')
    cache.weigh('a', 'first', 1_000)
    expect(cache.weight).toBe(0)
    cache.delete('a', 'first')
    expect(cache.get('a')).toBe('second')
    cache.weigh('a', 'second', 30)
    cache.delete('a')
    expect(cache.size).toBe(0)
    expect(cache.weight).toBe(0)
  })
})
