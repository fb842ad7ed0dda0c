import { z } from 'zod'

/** Lower-case UUID, as every `id` and `*_id` of the API. */
export const Uuid = z.uuid({ abort: true }).regex(/^[0-9a-f-]+$/, 'must be lower-case')

/** ISO 8601 UTC timestamp with `Z`, as the API writes every instant. */
export const Timestamp = z.iso.datetime()

/** E.164 phone number: `+`, country code, at most 15 digits. */
export const E164_PATTERN = /^\+[1-9]\d{1,14}$/
export const E164_MESSAGE = 'must be an E.164 phone number such as +14155550123'
export const PhoneNumber = z.string().regex(E164_PATTERN, E164_MESSAGE)

export const Scope = z.enum(['calls:read', 'contacts:read', 'contacts:write', 'leads:read', 'appointments:read'])
export type Scope = z.infer<typeof Scope>
