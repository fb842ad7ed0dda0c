const DAY = 86_400_000
let cachedDay = NaN
let cachedDate = ''

/**
 * `new Date(ms).toISOString()`, for the instants a seed writes by the million.
 *
 * @note The date part is formatted once per day and reused; the time part is
 * plain arithmetic. A 100,000-call seed formats about two million instants,
 * and `toISOString` made that a fifth of the seed's time.
 *
 * @example
 * iso(0) // '1970-01-01T00:00:00.000Z'
 */
export function iso(ms: number): string {
  const day = Math.floor(ms / DAY)
  if (day !== cachedDay) {
    cachedDay = day
    cachedDate = new Date(day * DAY).toISOString().slice(0, 11)
  }
  let rest = ms - day * DAY
  const hours = Math.floor(rest / 3_600_000)
  rest -= hours * 3_600_000
  const minutes = Math.floor(rest / 60_000)
  rest -= minutes * 60_000
  const seconds = Math.floor(rest / 1_000)
  const millis = Math.floor(rest - seconds * 1_000)
  return `${cachedDate}${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`
}

function pad2(value: number): string {
  return value < 10 ? `0${value}` : `${value}`
}
