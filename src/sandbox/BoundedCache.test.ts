import { describe, expect, it } from 'vitest'
import { BoundedCache } from './BoundedCache.js'

describe('BoundedCache', () => {
  it('keeps at most max values, dropping the least recently used first', () => {
    const cache = new BoundedCache<string>(2, Number.POSITIVE_INFINITY)
    cache.set('a', 'A')
    cache.set('b', 'B')
    expect(cache.get('a')).toBe('A')
    cache.set('c', 'C')
    expect(cache.size).toBe(2)
    expect(cache.get('b')).toBeUndefined()
    expect(cache.get('a')).toBe('A')
    expect(cache.get('c')).toBe('C')
  })

  it('drops the least recently used while the weights are over maxWeight, but never the most recent', () => {
    const cache = new BoundedCache<string>(10, 100)
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
    const cache = new BoundedCache<string>(4, 100)
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
