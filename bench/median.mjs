/** The middle value of `values` (the upper middle of an even count): what every figure of the bench reports. */
/** @param {readonly number[]} values */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? NaN
}
