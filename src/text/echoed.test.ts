import { expect, it } from 'vitest'
import { ECHO_LIMIT, echoed } from './echoed.js'

it('repeats a value up to the limit as it is', () => {
  expect(echoed('/v1/callz')).toBe('/v1/callz')
  expect(echoed('a'.repeat(ECHO_LIMIT))).toBe('a'.repeat(ECHO_LIMIT))
})

it('cuts a longer value, with an ellipsis and its length', () => {
  expect(echoed('a'.repeat(60_000))).toBe(`${'a'.repeat(ECHO_LIMIT)}… (60,000 characters)`)
})

it('does not cut a surrogate pair in two', () => {
  const text = `${'a'.repeat(ECHO_LIMIT - 1)}${'😀'.repeat(10)}`
  expect(echoed(text)).toBe(`${'a'.repeat(ECHO_LIMIT - 1)}… (${text.length} characters)`)
})
