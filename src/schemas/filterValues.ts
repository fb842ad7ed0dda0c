import { z } from 'zod'
import { E164_PATTERN } from './common.js'
import { echoed } from '../text/echoed.js'

/*
 * The values a list filter takes, as query text in and the stored value out. Each carries the message a client sees
 * when its value is wrong.
 */

const PHONE_MESSAGE = 'phone must be an E.164 number such as +14155550123.'

/** An E.164 number; a leading `+` sent unescaped arrives as a space, and the message says so. */
export const phoneFilter = z.string().regex(E164_PATTERN, {
  error: (issue) =>
    /^ \d/.test(String(issue.input))
      ? `${PHONE_MESSAGE} The leading + arrived as a space: send it as %2B (phone=%2B${echoed(String(issue.input).trim())}).`
      : PHONE_MESSAGE,
})

/** One of an enum's values, exact; the message lists them. */
export const oneOfFilter = <T extends string>(name: string, values: readonly T[]) =>
  z.enum(values as [T, ...T[]], { error: `${name} must be one of: ${values.join(', ')}.` })
