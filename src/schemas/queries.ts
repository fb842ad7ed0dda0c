import { z } from 'zod'
import { AppointmentStatus } from './appointment.js'
import { CallStatus } from './call.js'
import { E164_PATTERN } from './common.js'
import { parseInstant } from './instant.js'
import { echoed } from './echoed.js'
import { LeadStatus, Urgency } from './lead.js'
import type { Kind, StoredRecords } from './stored.js'

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

/** The request journal's filters (`GET /_sandbox/requests`): each given one must match. */
export const JournalQuery = z.object({
  limit: z
    .string()
    .regex(/^\d{1,7}$/, { error: 'limit must be a positive integer.' })
    .transform(Number)
    .pipe(z.int().min(1, { error: 'limit must be a positive integer.' }))
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
  since: z
    .string()
    .transform((text, context) => {
      const ms = parseInstant(text)
      if (ms !== undefined) return ms
      context.addIssue({
        code: 'custom',
        message: 'since must be an ISO 8601 date-time, such as 2026-11-20T12:00:00Z.',
      })
      return z.NEVER
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

const PHONE_MESSAGE = 'phone must be an E.164 number such as +14155550123.'
const phone = z.string().regex(E164_PATTERN, {
  error: (issue) =>
    /^ \d/.test(String(issue.input))
      ? `${PHONE_MESSAGE} The leading + arrived as a space: send it as %2B (phone=%2B${echoed(String(issue.input).trim())}).`
      : PHONE_MESSAGE,
})

const oneOf = <T extends string>(name: string, values: readonly T[]) =>
  z.enum(values as [T, ...T[]], { error: `${name} must be one of: ${values.join(', ')}.` })

const cursor = z.string()

const common = {
  limit: limit.optional(),
  cursor: cursor.optional(),
  since: since.optional(),
}

/** One filter of a list: the schema of its query parameter's value, and the stored field that value must equal. */
interface ListFilter<K extends Kind> {
  value: z.ZodType<string, string>
  field: keyof StoredRecords[K] & string
}

/**
 * The filters of each list endpoint, declared once: a list's query schema is
 * made from them, the database keeps an index per field, and the endpoint
 * selects on them, so a parameter the API takes always filters.
 */
export const LIST_FILTERS = {
  calls: {
    status: { value: oneOf('status', CallStatus.options), field: 'status' },
    phone: { value: phone, field: 'caller_phone' },
  },
  contacts: { phone: { value: phone, field: 'phone' } },
  leads: {
    status: { value: oneOf('status', LeadStatus.options), field: 'status' },
    urgency: { value: oneOf('urgency', Urgency.options), field: 'urgency' },
  },
  appointments: { status: { value: oneOf('status', AppointmentStatus.options), field: 'status' } },
} as const satisfies { [K in Kind]: Record<string, ListFilter<K>> }

/** A list's query: `limit`, `cursor`, `since`, then its filters. */
function listQuery<F extends Record<string, { value: z.ZodType<string, string> }>>(filters: F) {
  const shape = Object.fromEntries(Object.entries(filters).map(([name, filter]) => [name, filter.value.optional()]))
  return z.object({ ...common, ...(shape as { [P in keyof F]: z.ZodOptional<F[P]['value']> }) })
}

export const ListCallsQuery = listQuery(LIST_FILTERS.calls)
export const ListContactsQuery = listQuery(LIST_FILTERS.contacts)
export const ListLeadsQuery = listQuery(LIST_FILTERS.leads)
export const ListAppointmentsQuery = listQuery(LIST_FILTERS.appointments)
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

export const CallPath = z.object({ call_id: pathId('call_id') })
export const ContactPath = z.object({ contact_id: pathId('contact_id') })
