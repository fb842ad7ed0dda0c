/**
 * Who is told of a change: listeners added and removed, then told in turn;
 * one that throws is logged and does not stop the others.
 *
 * @example
 * const listeners = new Listeners('an onChange listener')
 * const stop = listeners.add(() => save())
 * listeners.notify()
 */
export class Listeners {
  readonly #listeners = new Set<() => void>()

  /** @param what What a listener is called in the log line of one that fails. */
  constructor(readonly what: string) {}

  /** Adds `listener`; returns a function that removes it. */
  add(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  notify(): void {
    for (const listener of this.#listeners) {
      try {
        listener()
      } catch (error) {
        console.error(`[call-sandbox] ${this.what} failed:`, error)
      }
    }
  }
}
