import type { z } from 'zod'
import { ApiError } from './ApiError.js'
import { echoed } from '../text/echoed.js'
import type { FieldError } from './envelope.js'
import { thousands } from '../text/thousands.js'

/**
 * How many bad fields a 422 lists: the first ones, and the count of the rest in its message.
 *
 * @note Every one of 6,500 unknown fields of a 64 KiB body made an 880 KB answer; the first twenty say what is wrong.
 */
export const MAX_LISTED = 20

/**
 * Checks body fields against a schema; every bad field is reported at once in
 * a 422 `validation_failed`, with `problems` found beyond the schema (a
 * value the sandbox does not know) among them: the first `MAX_LISTED` in its
 * `details`, and how many more in its message.
 *
 * @example
 * const contact = parseBody(CreateContactRequest, fields)
 */
export function parseBody<S extends z.ZodType>(
  schema: S,
  fields: unknown,
  problems: readonly FieldError[] = [],
): z.infer<S> {
  const result = schema.safeParse(fields)
  if (result.success && problems.length === 0) return result.data
  const given = typeof fields === 'object' && fields !== null ? fields : {}
  const found = [
    ...(result.success ? [] : result.error.issues.flatMap((issue) => toFieldErrors(issue, given))),
    ...problems,
  ]
  const details = found.slice(0, MAX_LISTED)
  const more = found.length - details.length
  const summary = details.map((detail) => detail.message).join('; ') + (more > 0 ? `; and ${thousands(more)} more` : '')
  throw new ApiError(
    'validation_failed',
    `The body has ${found.length === 1 ? 'a bad field' : `${thousands(found.length)} bad fields`}: ${summary}.`,
    { details },
  )
}

function toFieldErrors(issue: z.core.$ZodIssue, given: object): FieldError[] {
  const field = issue.path.join('.')
  switch (issue.code) {
    case 'unrecognized_keys':
      // A key of a nested object is named by its path (`latency.extra`), so that it is not taken for a top field.
      return issue.keys.map((key) => {
        const named = echoed([...issue.path, key].join('.'))
        return { field: named, code: 'unknown_field', message: `${named} is not a field this endpoint takes` }
      })
    case 'invalid_type':
      return field in given
        ? [{ field, code: 'invalid_type', message: `${field} ${issue.message}` }]
        : [{ field, code: 'required', message: `${field} is required` }]
    case 'too_big':
      return [{ field, code: 'too_long', message: `${field} ${issue.message}` }]
    case 'invalid_value':
      return [{ field, code: 'invalid_choice', message: `${field} ${issue.message}` }]
    default:
      return [{ field, code: 'invalid_format', message: `${field} ${issue.message}` }]
  }
}
