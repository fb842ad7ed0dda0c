/**
 * Records made or loaded between two turns of the event loop, when a world is seeded or loaded in slices: at most a
 * few tens of milliseconds of work, so that other requests are answered while a 100,000-call world is made.
 */
export const SLICE_SIZE = 1_000

/**
 * Resolves on a later turn of the event loop, once what is waiting (other requests, timers, I/O) has run.
 *
 * @note `setImmediate` where there is one (Node): a timer of 0 ms waits a millisecond or more, and a browser clamps
 * it to 4 ms past a few in a row.
 *
 * @example
 * for (const [i, record] of records.entries()) if (i % SLICE_SIZE === 0) await nextTurn()
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => (typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0)))
}
