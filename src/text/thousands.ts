/**
 * A whole number with commas between thousands, as `toLocaleString('en-US')`
 * writes it.
 * @note Not `toLocaleString`: its first call loads the locale's data, which
 * took 0.17 s of importing the package (schemas build their messages then).
 *
 * @example
 * thousands(60000) // '60,000'
 */
export function thousands(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}
