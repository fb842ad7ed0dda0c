import { z } from 'zod'
import { parseInstant } from './instant.js'
import { byKind, type Kind, RESOURCES } from './registry.js'

/*
 * Query and path parameters, as strings in and typed values out. Each
 * parameter carries the message a client sees when its value is wrong.
 */

export const MAX_LIMIT = 100
export const DEFAULT_LIMIT = 50

const LIMIT_MESSAGE = `limit must be an integer from 1 to ${MAX_LIMIT}.`
const limit = z
  .string()
  .regex(/^\d{1,6}$/, { error: LIMIT_MESSAGE })
  .transform(Number)
  .pipe(z.int().min(1, { error: LIMIT_MESSAGE }).max(MAX_LIMIT, { error: LIMIT_MESSAGE }))

/** A journal filter's instant: an ISO 8601 date-time, as epoch ms. */
function journalInstant(name: string) {
  return z.string().transform((text, context) => {
    const ms = parseInstant(text)
    if (ms !== undefined) return ms
    context.addIssue({
      code: 'custom',
      message: `${name} must be an ISO 8601 date-time, such as 2026-11-20T12:00:00Z.`,
    })
    return z.NEVER
  })
}

/** The most entries `offset` passes over: more than any journal keeps (its size is bounded too). */
export const MAX_JOURNAL_OFFSET = 1_000_000
const OFFSET_MESSAGE = `offset must be an integer from 0 to ${MAX_JOURNAL_OFFSET}.`

/** The request journal's filters (`GET /_sandbox/requests`): each given one must match. */
export const JournalQuery = z.object({
  limit: z
    .string()
    .regex(/^\d{1,7}$/, { error: 'limit must be a positive integer.' })
    .transform(Number)
    .pipe(z.int().min(1, { error: 'limit must be a positive integer.' }))
    .optional(),
  /** How many of the newest matching entries to pass over: the console's pages past the first. */
  offset: z
    .string()
    .regex(/^\d{1,7}$/, { error: OFFSET_MESSAGE })
    .transform(Number)
    .pipe(z.int().min(0).max(MAX_JOURNAL_OFFSET, { error: OFFSET_MESSAGE }))
    .optional(),
  method: z
    .string()
    .regex(/^[A-Za-z]{1,16}$/, { error: 'method must be an HTTP method, such as GET or POST.' })
    .optional(),
  path: z
    .string()
    .regex(/^\/\S*$/, { error: 'path must start with /, such as /v1/contacts, or end with * for a prefix: /v1/*.' })
    .optional(),
  status: z
    .string()
    .regex(/^([1-5]\d\d|[1-5]xx)$/i, { error: 'status must be a status, such as 404, or a class, such as 4xx.' })
    .optional(),
  /** A key as sent, or as the journal shows it (`…abcd`). */
  key: z
    .string()
    .min(1, { error: 'key must be an API key, such as sk_sandbox_all, or one as the journal shows it, such as …abcd.' })
    .optional(),
  since: journalInstant('since').optional(),
  until: journalInstant('until').optional(),
  /** One request's id, as its `X-Request-Id` header gave it. */
  request_id: z
    .string()
    .regex(/^req_[A-Za-z0-9_-]{1,64}$/, {
      error: 'request_id must be a request id, such as req_3kTq9XbZ2Lw8PpYd1VnR5sAe.',
    })
    .optional(),
})
export type JournalQuery = z.infer<typeof JournalQuery>

const SINCE_MESSAGE = 'since must be an ISO 8601 date or date-time, such as 2026-11-01 or 2026-11-01T09:00:00Z.'
const since = z.string().transform((text, context) => {
  const ms = parseInstant(text)
  if (ms !== undefined) return ms
  const plusAsSpace = / \d{2}:?\d{2}$/.test(text)
  context.addIssue({
    code: 'custom',
    message: plusAsSpace ? `${SINCE_MESSAGE} The + of the offset arrived as a space: send it as %2B.` : SINCE_MESSAGE,
  })
  return z.NEVER
})

const cursor = z.string()

const common = {
  limit: limit.optional(),
  cursor: cursor.optional(),
  since: since
    .optional()
    .describe(
      'Records created strictly after this instant: it compares `created_at`, not `updated_at`, so a record that changed since it was created (a call that ended) does not come back. An ISO 8601 date or date-time, UTC without an offset.',
    ),
}

/** A list's query: `limit`, `cursor`, `since`, then its filters. */
function listQuery<F extends Record<string, { value: z.ZodType<string, string> }>>(filters: F) {
  const shape = Object.fromEntries(Object.entries(filters).map(([name, filter]) => [name, filter.value.optional()]))
  return z.object({ ...common, ...(shape as { [P in keyof F]: z.ZodOptional<F[P]['value']> }) })
}

type ListFilters = { [K in Kind]: (typeof RESOURCES)[K]['filters'] }

/**
 * The filters of each list endpoint, from the registry: a list's query schema is made from them, the database keeps
 * an index per field, and the endpoint selects on them, so a parameter the API takes always filters.
 */
export const LIST_FILTERS = byKind((kind) => RESOURCES[kind].filters) as ListFilters

/** Each list's query schema. */
export const LIST_QUERIES = byKind((kind) => listQuery(LIST_FILTERS[kind])) as {
  [K in Kind]: ReturnType<typeof listQuery<ListFilters[K]>>
}

export const NoQuery = z.object({})
export const NoPath = z.object({})

/** Any 8-4-4-4-12 hex id, any case: a well-formed id that names no record is a 404, not a 400. */
const pathId = (name: string) =>
  z
    .string()
    // Both cases spelled out, not the `i` flag: JSON Schema (the OpenAPI document) has no flags, and would refuse upper
    // case.
    .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, {
      error: `${name} must be a UUID, such as 3f2b8c1e-9d4a-4e7b-8c2f-1a2b3c4d5e6f.`,
    })
    .transform((text) => text.toLowerCase())

/** The path of one record of a kind: `{ call_id }`. */
export function recordPath(kind: Kind) {
  const name = `${RESOURCES[kind].singular}_id`
  return z.object({ [name]: pathId(name) })
}
