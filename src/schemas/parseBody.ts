import type { z } from 'zod'
import { ApiError } from './ApiError.js'
import type { FieldError } from './envelope.js'

/**
 * Checks body fields against a schema; every bad field is listed at once in
 * a 422 `validation_failed`, with `problems` found beyond the schema (a
 * value the sandbox does not know) among them.
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
  const details = [
    ...(result.success ? [] : result.error.issues.flatMap((issue) => toFieldErrors(issue, given))),
    ...problems,
  ]
  const summary = details.map((detail) => detail.message).join('; ')
  throw new ApiError(
    'validation_failed',
    `The body has ${details.length === 1 ? 'a bad field' : `${details.length} bad fields`}: ${summary}.`,
    { details },
  )
}

function toFieldErrors(issue: z.core.$ZodIssue, given: object): FieldError[] {
  const field = issue.path.join('.')
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({
        field: key,
        code: 'unknown_field',
        message: `${key} is not a field this endpoint takes`,
      }))
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
