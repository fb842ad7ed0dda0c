import { expect, it } from 'vitest'
import { thousands } from './thousands.js'

it.each([0, 7, 999, 1000, 10_000, 60_000, 100_000, 1_234_567, 9_007_199_254_740_991])(
  'writes %i as toLocaleString("en-US") does',
  (value) => {
    expect(thousands(value)).toBe(value.toLocaleString('en-US'))
  },
)
