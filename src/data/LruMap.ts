/** No key: what `#newest` holds when no entry is the newest (a key may be undefined). */
const NONE = Symbol('none')

/**
 * A map that keeps its `capacity` most recently used entries: `get` and `set`
 * make an entry the newest, and a `set` past the capacity lets the least
 * recently used one go. With a `maxWeight`, it also lets the oldest go while
 * what is kept weighs more than that in all, once `weigh` gives the weights
 * (the newest is kept whatever it weighs: it is the one in use). For what is
 * kept to be found again (a seeded world, an OpenAPI document, an upstream's
 * answer to a key), never for what must not be lost.
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
  readonly #entries = new Map<K, { value: V; weight: number }>()
  #weight = 0
  /** The newest entry's key, or NONE: a `get` of it leaves the order as it is (a Map's delete and set cost). */
  #newest: K | typeof NONE = NONE

  constructor(
    readonly capacity: number,
    readonly maxWeight = Number.POSITIVE_INFINITY,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`An LruMap keeps at least one entry: capacity must be an integer from 1 (got ${capacity}).`)
    }
  }

  /** How many entries it keeps now, at most `capacity`. */
  get size(): number {
    return this.#entries.size
  }

  /** What the kept values weigh in all (see `weigh`). */
  get weight(): number {
    return this.#weight
  }

  /** Whether it keeps `key`, without making it the newest. */
  has(key: K): boolean {
    return this.#entries.has(key)
  }

  /** The value of `key`, which is then the newest; undefined when it is not kept. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key)
    if (!entry) return undefined
    if (key !== this.#newest) {
      this.#entries.delete(key)
      this.#entries.set(key, entry)
      this.#newest = key
    }
    return entry.value
  }

  /** Keeps `value` under `key` as the newest entry, of no weight until `weigh` says, letting the oldest go. */
  set(key: K, value: V): this {
    this.delete(key)
    this.#entries.set(key, { value, weight: 0 })
    this.#newest = key
    this.#shrink()
    return this
  }

  /** Gives a kept value its weight (for a value whose size is known later); nothing when `key` holds another value. */
  weigh(key: K, value: V, weight: number): void {
    const entry = this.#entries.get(key)
    if (!entry || entry.value !== value) return
    this.#weight += weight - entry.weight
    entry.weight = weight
    this.#shrink()
  }

  /** Lets `key` go; with `value`, only while it holds that value. */
  delete(key: K, value?: V): boolean {
    const entry = this.#entries.get(key)
    if (!entry || (value !== undefined && entry.value !== value)) return false
    this.#entries.delete(key)
    this.#weight -= entry.weight
    if (key === this.#newest) this.#newest = NONE
    return true
  }

  /** The keys, the least recently used first. */
  keys(): IterableIterator<K> {
    return this.#entries.keys()
  }

  #shrink(): void {
    for (const key of this.#entries.keys()) {
      if (this.#entries.size <= 1) return
      if (this.#entries.size <= this.capacity && this.#weight <= this.maxWeight) return
      this.delete(key)
    }
  }
}
