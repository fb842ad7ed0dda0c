/**
 * Values by key, the least recently used dropped first: at most `max` of
 * them, and at most `maxWeight` in all once their weights are known (the
 * most recent is kept whatever it weighs: it is the one in use).
 *
 * @example
 * const cache = new BoundedCache<string>(4, 100_000)
 * cache.set('a', 'value')
 * cache.weigh('a', 'value', 1_500)
 */
export class BoundedCache<V> {
  /** Least recently used first. */
  readonly #entries = new Map<string, { value: V; weight: number }>()
  #weight = 0

  constructor(
    readonly max: number,
    readonly maxWeight: number,
  ) {}

  /** The value of a key, which becomes the most recently used. */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key)
    if (!entry) return undefined
    this.#entries.delete(key)
    this.#entries.set(key, entry)
    return entry.value
  }

  /** Keeps a value as the most recently used, of no weight until `weigh` says. */
  set(key: string, value: V): void {
    this.delete(key)
    this.#entries.set(key, { value, weight: 0 })
    this.#shrink()
  }

  /** Gives a kept value its weight (a value made later, once known); nothing when the key holds another value now. */
  weigh(key: string, value: V, weight: number): void {
    const entry = this.#entries.get(key)
    if (entry?.value !== value) return
    this.#weight += weight - entry.weight
    entry.weight = weight
    this.#shrink()
  }

  /** Drops a key; with `value`, only while it holds that value. */
  delete(key: string, value?: V): void {
    const entry = this.#entries.get(key)
    if (!entry || (value !== undefined && entry.value !== value)) return
    this.#entries.delete(key)
    this.#weight -= entry.weight
  }

  get size(): number {
    return this.#entries.size
  }

  /** What the kept values weigh in all. */
  get weight(): number {
    return this.#weight
  }

  #shrink(): void {
    for (const key of this.#entries.keys()) {
      if (this.#entries.size <= 1 || (this.#entries.size <= this.max && this.#weight <= this.maxWeight)) return
      this.delete(key)
    }
  }
}
