import { z } from 'zod'
import { E164_MESSAGE, E164_PATTERN, PhoneNumber, Timestamp, Uuid } from './common.js'
import { thousands } from '../text/thousands.js'

export const ContactSource = z.enum(['inbound_call', 'api'])
export type ContactSource = z.infer<typeof ContactSource>

export const Contact = z.object({
  id: Uuid,
  phone: PhoneNumber,
  name: z.string().nullable(),
  email: z.email().nullable(),
  company: z.string().nullable(),
  source: ContactSource,
  total_calls: z.int().nonnegative(),
  last_call_at: Timestamp.nullable(),
  notes: z.string().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
})
export type Contact = z.infer<typeof Contact>

export const MAX_FIELD_LENGTH = 1_000
export const MAX_NOTES_LENGTH = 10_000

const text = (max: number) =>
  z.string({ error: 'must be a string' }).max(max, `must be at most ${thousands(max)} characters`)

/** Body of `POST /v1/contacts`. `phone` is required; the rest may be omitted or null. */
export const CreateContactRequest = z.strictObject({
  phone: z.string({ error: 'must be a string' }).regex(E164_PATTERN, E164_MESSAGE),
  name: text(MAX_FIELD_LENGTH).nullish(),
  email: z
    .email({ error: 'must be a valid email address' })
    .max(MAX_FIELD_LENGTH, `must be at most ${thousands(MAX_FIELD_LENGTH)} characters`)
    .nullish(),
  company: text(MAX_FIELD_LENGTH).nullish(),
  notes: text(MAX_NOTES_LENGTH).nullish(),
})
export type CreateContactRequest = z.infer<typeof CreateContactRequest>
