import { thousands } from '../text/thousands.js'

/** Added latency in milliseconds: fixed when `min` equals `max`, else drawn from the range each time. */
export interface Latency {
  min: number
  max: number
}

export const MAX_LATENCY_MS = 60_000

/**
 * Reads a latency option: `250`, `'250'` or `'100-400'` (milliseconds, at
 * most 60,000), or `{ min, max }`.
 *
 * @example
 * parseLatency('100-400') // { min: 100, max: 400 }
 */
export function parseLatency(value: number | string | Latency): Latency {
  const problem = () =>
    new RangeError(
      `latency must be milliseconds (250) or a range (100-400), at most ${thousands(MAX_LATENCY_MS)}; got ${JSON.stringify(value)}.`,
    )
  let latency: Latency
  if (typeof value === 'number') {
    latency = { min: value, max: value }
  } else if (typeof value === 'string') {
    const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(value.trim())
    if (!match) throw problem()
    latency = { min: Number(match[1]), max: Number(match[2] ?? match[1]) }
  } else {
    latency = { min: value?.min, max: value?.max }
  }
  const { min, max } = latency
  if (!Number.isInteger(min) || !Number.isInteger(max) || min < 0 || min > max || max > MAX_LATENCY_MS) throw problem()
  return latency
}
