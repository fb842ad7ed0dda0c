/**
 * A map that keeps its `capacity` most recently used entries: `get` and `set`
 * make an entry the newest, and a `set` past the capacity lets the least
 * recently used one go. For what is kept to be found again (a seeded world,
 * an OpenAPI document, an upstream's answer to a key), never for what must
 * not be lost.
 *
 * @note Our own, not lru-cache: these few lines do what is needed, where that
 * package would add 3.6 MB to every install.
 * @example
 * const documents = new LruMap<string, object>(2)
 * documents.set('a', {}).set('b', {})
 * documents.get('a') // 'a' is now the newest
 * documents.set('c', {}) // 'b' goes
 */
export class LruMap<K, V> {
  /** Oldest first: a Map iterates in the order its keys were set. */
  readonly #entries = new Map<K, V>()

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`An LruMap keeps at least one entry: capacity must be an integer from 1 (got ${capacity}).`)
    }
  }

  /** How many entries it keeps now, at most `capacity`. */
  get size(): number {
    return this.#entries.size
  }

  /** Whether it keeps `key`, without making it the newest. */
  has(key: K): boolean {
    return this.#entries.has(key)
  }

  /** The value of `key`, which is then the newest; undefined when it is not kept. */
  get(key: K): V | undefined {
    if (!this.#entries.has(key)) return undefined
    const value = this.#entries.get(key) as V
    this.#entries.delete(key)
    this.#entries.set(key, value)
    return value
  }

  /** Keeps `value` under `key` as the newest entry, letting the oldest go past the capacity. */
  set(key: K, value: V): this {
    this.#entries.delete(key)
    this.#entries.set(key, value)
    if (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value as K)
    return this
  }

  delete(key: K): boolean {
    return this.#entries.delete(key)
  }

  /** The keys, the least recently used first. */
  keys(): IterableIterator<K> {
    return this.#entries.keys()
  }
}
