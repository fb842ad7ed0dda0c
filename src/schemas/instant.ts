const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i

/**
 * Reads an ISO 8601 date (`2026-11-01`) or date-time (`2026-11-01T09:30`,
 * `…:00Z`, `…:00.250+02:00`) as epoch milliseconds; without an offset it is
 * UTC. Impossible dates (February 30th, hour 24) are `undefined`, not rolled over.
 *
 * @example
 * parseInstant('2026-11-01T09:00:00+01:00') // Date.parse('2026-11-01T08:00:00Z')
 */
export function parseInstant(text: string): number | undefined {
  const match = ISO_INSTANT.exec(text)
  if (!match) return undefined
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', zone = 'Z'] = match
  const [y, mo, d, h, mi, s] = [year, month, day, hour, minute, second].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ]
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) return undefined
  let offsetMinutes = 0
  if (zone.toUpperCase() !== 'Z') {
    const digits = zone.slice(1).replace(':', '')
    const [oh, om] = [Number(digits.slice(0, 2)), Number(digits.slice(2))]
    if (oh > 23 || om > 59) return undefined
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (oh * 60 + om)
  }
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3))
  const utc = new Date(0)
  utc.setUTCFullYear(y, mo - 1, d)
  utc.setUTCHours(h, mi, s, ms)
  return utc.getTime() - offsetMinutes * 60_000
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate()
}
