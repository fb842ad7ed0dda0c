import { describe, expect, it } from 'vitest'
import { parseInstant } from './instant.js'

const HOUR = 3_600_000
const MINUTE = 60_000

describe('parseInstant', () => {
  describe('accepts', () => {
    it.each([
      // A date alone is UTC midnight.
      { text: '2026-11-01', expected: Date.UTC(2026, 10, 1) },
      { text: '2024-02-29', expected: Date.UTC(2024, 1, 29) },
      { text: '2000-02-29', expected: Date.UTC(2000, 1, 29) },
      { text: '2026-12-31', expected: Date.UTC(2026, 11, 31) },
      { text: '2026-01-01', expected: Date.UTC(2026, 0, 1) },
      // A date-time without an offset is UTC.
      { text: '2026-11-01T09:30', expected: Date.UTC(2026, 10, 1, 9, 30) },
      { text: '2026-11-01T09:30:15', expected: Date.UTC(2026, 10, 1, 9, 30, 15) },
      { text: '2026-11-01T00:00:00', expected: Date.UTC(2026, 10, 1) },
      { text: '2026-11-01T23:59:59', expected: Date.UTC(2026, 10, 1, 23, 59, 59) },
      // Z.
      { text: '2026-11-01T09:30Z', expected: Date.UTC(2026, 10, 1, 9, 30) },
      { text: '2026-11-01T09:30:15Z', expected: Date.UTC(2026, 10, 1, 9, 30, 15) },
      // Offsets: local time minus the offset is UTC.
      { text: '2026-11-01T09:00:00+01:00', expected: Date.UTC(2026, 10, 1, 8) },
      { text: '2026-11-01T09:00:00-05:00', expected: Date.UTC(2026, 10, 1, 14) },
      { text: '2026-11-01T09:00:00+0530', expected: Date.UTC(2026, 10, 1, 9) - 5 * HOUR - 30 * MINUTE },
      { text: '2026-11-01T09:00:00-0930', expected: Date.UTC(2026, 10, 1, 9) + 9 * HOUR + 30 * MINUTE },
      { text: '2026-11-01T09:00+02:00', expected: Date.UTC(2026, 10, 1, 7) },
      { text: '2026-11-01T09:00:00+00:00', expected: Date.UTC(2026, 10, 1, 9) },
      { text: '2026-11-01T09:00:00-00:00', expected: Date.UTC(2026, 10, 1, 9) },
      { text: '2026-11-01T09:00:00+23:59', expected: Date.UTC(2026, 10, 1, 9) - 23 * HOUR - 59 * MINUTE },
      // An offset may cross the date line, both ways.
      { text: '2026-11-01T01:00:00+02:00', expected: Date.UTC(2026, 9, 31, 23) },
      { text: '2026-12-31T23:00:00-02:00', expected: Date.UTC(2027, 0, 1, 1) },
      // Fractions of 1 to 9 digits, truncated (never rounded) to milliseconds.
      { text: '2026-11-01T09:30:15.5Z', expected: Date.UTC(2026, 10, 1, 9, 30, 15, 500) },
      { text: '2026-11-01T09:30:15.25Z', expected: Date.UTC(2026, 10, 1, 9, 30, 15, 250) },
      { text: '2026-11-01T09:30:15.250Z', expected: Date.UTC(2026, 10, 1, 9, 30, 15, 250) },
      { text: '2026-11-01T09:30:15.0009Z', expected: Date.UTC(2026, 10, 1, 9, 30, 15, 0) },
      { text: '2026-11-01T09:30:15.99999Z', expected: Date.UTC(2026, 10, 1, 9, 30, 15, 999) },
      { text: '2026-11-01T09:30:15.123456Z', expected: Date.UTC(2026, 10, 1, 9, 30, 15, 123) },
      { text: '2026-11-01T09:30:15.1234567Z', expected: Date.UTC(2026, 10, 1, 9, 30, 15, 123) },
      { text: '2026-11-01T09:30:15.12345678Z', expected: Date.UTC(2026, 10, 1, 9, 30, 15, 123) },
      { text: '2026-11-01T09:30:15.999999999Z', expected: Date.UTC(2026, 10, 1, 9, 30, 15, 999) },
      { text: '2026-11-01T09:30:15.250+02:00', expected: Date.UTC(2026, 10, 1, 7, 30, 15, 250) },
      { text: '2026-11-01T09:30:15.7', expected: Date.UTC(2026, 10, 1, 9, 30, 15, 700) },
      // The letters in any case.
      { text: '2026-11-01t09:30:15z', expected: Date.UTC(2026, 10, 1, 9, 30, 15) },
      { text: '2026-11-01t09:30:15Z', expected: Date.UTC(2026, 10, 1, 9, 30, 15) },
      { text: '2026-11-01T09:30:15z', expected: Date.UTC(2026, 10, 1, 9, 30, 15) },
    ])('$text as $expected', ({ text, expected }) => {
      expect(parseInstant(text)).toBe(expected)
    })

    it('agrees with Date.parse on every form both read', () => {
      for (const text of [
        '2026-11-01T09:00:00+01:00',
        '2026-11-01T09:30:15.250Z',
        '2026-11-01',
        '2026-02-28T23:59:59.999-12:00',
      ]) {
        expect(parseInstant(text), text).toBe(Date.parse(text))
      }
    })
  })

  describe('rejects', () => {
    it.each([
      // Impossible dates are rejected, never rolled over into the next month.
      { why: 'February 30th', text: '2026-02-30' },
      { why: 'February 29th of a common year', text: '2026-02-29' },
      { why: 'February 29th of a century that is not a leap year', text: '1900-02-29' },
      { why: 'April 31st', text: '2026-04-31' },
      { why: 'day 0', text: '2026-11-00' },
      { why: 'day 32', text: '2026-01-32' },
      { why: 'month 13', text: '2026-13-01' },
      { why: 'month 0', text: '2026-00-10' },
      // Impossible times.
      { why: 'hour 24', text: '2026-11-01T24:00:00Z' },
      { why: 'hour 24 without seconds', text: '2026-11-01T24:00' },
      { why: 'minute 60', text: '2026-11-01T09:60:00Z' },
      { why: 'second 60', text: '2026-11-01T09:30:60Z' },
      { why: 'offset +24:00', text: '2026-11-01T09:30:00+24:00' },
      { why: 'offset -24:00', text: '2026-11-01T09:30:00-24:00' },
      { why: 'offset minutes 60', text: '2026-11-01T09:30:00+01:60' },
      // Forms that are not ISO 8601 as the API reads it.
      { why: 'trailing garbage', text: '2026-11-01T09:30:00Zjunk' },
      { why: 'trailing garbage after a date', text: '2026-11-01x' },
      { why: 'a trailing newline', text: '2026-11-01\n' },
      { why: 'a leading space', text: ' 2026-11-01' },
      { why: 'a trailing space', text: '2026-11-01 ' },
      { why: 'a space for T', text: '2026-11-01 09:30:00Z' },
      { why: 'a space for the + of the offset', text: '2026-11-01T09:30:00 01:00' },
      { why: 'the empty string', text: '' },
      { why: 'epoch seconds', text: '1763640000' },
      { why: 'epoch milliseconds', text: '1763640000000' },
      { why: 'an hour without minutes', text: '2026-11-01T09' },
      { why: 'an offset of hours only', text: '2026-11-01T09:30:00+01' },
      { why: 'a fraction of 10 digits', text: '2026-11-01T09:30:15.1234567890Z' },
      { why: 'a fraction without digits', text: '2026-11-01T09:30:15.Z' },
      { why: 'a fraction without seconds', text: '2026-11-01T09:30.5Z' },
      { why: 'a Z after a date alone', text: '2026-11-01Z' },
      { why: 'one-digit month and day', text: '2026-1-1' },
      { why: 'a basic-format date', text: '20261101' },
      { why: 'a two-digit year', text: '26-11-01' },
      { why: 'a five-digit year', text: '12026-11-01' },
      { why: 'a signed year', text: '+2026-11-01' },
      { why: 'slashes', text: '2026/11/01' },
      { why: 'a date in words', text: 'November 1, 2026' },
      { why: 'an RFC 2822 date', text: 'Sun, 01 Nov 2026 09:30:00 GMT' },
      { why: 'a time zone name', text: '2026-11-01T09:30:00 UTC' },
      { why: 'non-ASCII digits', text: '２０２６-11-01' },
      { why: 'now', text: 'now' },
    ])('$why ($text)', ({ text }) => {
      expect(parseInstant(text)).toBeUndefined()
    })

    it('February 29th only in a leap year', () => {
      expect(parseInstant('2023-02-29')).toBeUndefined()
      expect(parseInstant('2024-02-29')).toBe(Date.UTC(2024, 1, 29))
      expect(parseInstant('2024-02-29T12:00:00Z')).toBe(Date.UTC(2024, 1, 29, 12))
      expect(parseInstant('2025-02-29T12:00:00Z')).toBeUndefined()
    })
  })
})
