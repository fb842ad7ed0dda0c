import { z } from 'zod'

/** Lower-case UUID, as every `id` and `*_id` of the API. */
export const Uuid = z.uuid({ abort: true }).regex(/^[0-9a-f-]+$/, 'must be lower-case')

/** ISO 8601 UTC timestamp with `Z`, as the API writes every instant. */
export const Timestamp = z.iso.datetime()

/** E.164 phone number: `+`, country code, at most 15 digits. */
export const E164_PATTERN = /^\+[1-9]\d{1,14}$/
export const E164_MESSAGE = 'must be an E.164 phone number such as +14155550123'
export const PhoneNumber = z.string().regex(E164_PATTERN, E164_MESSAGE)

/**
 * An absolute `http:` or `https:` URL (`recording_url`, `calendar_event_link`): a link a browser follows and never
 * runs. Any other scheme (`javascript:`, `data:`) is refused, whatever its case and the tabs, newlines or spaces in
 * it, as the URL parser reads the value as a browser does; so is a relative URL (`//host/path`, `/path`).
 */
export const HttpUrl = z.url({ protocol: z.regexes.httpProtocol, error: 'must be an absolute http: or https: URL' })
