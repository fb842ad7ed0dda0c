import { LATENCY_RULE, type Latency, MAX_LATENCY_MS, readLatency } from '../schemas/settings.js'

export type { Latency }
export { MAX_LATENCY_MS }

/**
 * Reads a latency option: `250`, `'250'` or `'100-400'` (milliseconds, at
 * most 60,000), or `{ min, max }`.
 *
 * @example
 * parseLatency('100-400') // { min: 100, max: 400 }
 */
export function parseLatency(value: number | string | Latency): Latency {
  const latency = readLatency(value)
  if (!latency) throw new RangeError(`latency must be ${LATENCY_RULE}; got ${JSON.stringify(value)}.`)
  return latency
}
