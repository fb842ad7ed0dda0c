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
})
