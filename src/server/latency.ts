/** Added latency: a fixed number of milliseconds, or a range drawn from anew each time. */
export interface Latency {
  min: number
  max: number
  next(): number
}

export const MAX_LATENCY_MS = 60_000

/**
 * Reads `250` or `100-400` (milliseconds, at most 60,000).
 *
 * @example
 * parseLatency('100-400').next() // somewhere from 100 to 400
 */
export function parseLatency(text: string): Latency {
  const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(text.trim())
  const min = Number(match?.[1])
  const max = match?.[2] === undefined ? min : Number(match[2])
  if (!match || min > max || max > MAX_LATENCY_MS) {
    throw new RangeError(`latency must be milliseconds (250) or a range (100-400), at most ${MAX_LATENCY_MS}; got "${text}".`)
  }
  return { min, max, next: () => min + Math.floor(Math.random() * (max - min + 1)) }
}
