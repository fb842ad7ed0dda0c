import { z } from 'zod'
import { Timestamp } from './common.js'

export const Meta = z.object({
  request_id: z.string().regex(/^req_[A-Za-z0-9_-]{24,}$/),
  timestamp: Timestamp,
})
export type Meta = z.infer<typeof Meta>

export const ListEnvelope = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    has_more: z.boolean(),
    next_cursor: z.string().nullable(),
    meta: Meta,
  })

export const RecordEnvelope = <T extends z.ZodType>(record: T) => z.object({ data: record, meta: Meta })

export const ErrorCode = z.enum([
  'invalid_parameter',
  'unknown_parameter',
  'invalid_cursor',
  'invalid_json',
  'unauthorized',
  'insufficient_scope',
  'client_not_allowed',
  'host_not_allowed',
  'origin_not_allowed',
  'not_found',
  'method_not_allowed',
  'contact_exists',
  'payload_too_large',
  'request_timeout',
  'expectation_failed',
  'unsupported_media_type',
  'validation_failed',
  'rate_limited',
  'internal_error',
  'service_unavailable',
  'storage_unavailable',
  'session_exists',
  'session_limit_reached',
  'fault_rule_limit_reached',
  'upstream_unreachable',
  'upstream_timeout',
  'upstream_not_json',
  'upstream_unsafe_url',
])
export type ErrorCode = z.infer<typeof ErrorCode>

export const ErrorType = z.enum([
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'rate_limit_error',
  'api_error',
])
export type ErrorType = z.infer<typeof ErrorType>

/** One bad field of a request body (422 `validation_failed`). */
export const FieldError = z.object({
  field: z.string(),
  /** `invalid_choice`: not one of the values the field takes (a status, a scenario, a reason); the message lists them. */
  code: z.enum(['required', 'invalid_type', 'invalid_format', 'invalid_choice', 'too_long', 'unknown_field']),
  message: z.string(),
})
export type FieldError = z.infer<typeof FieldError>

export const ErrorEnvelope = z.object({
  error: z.object({
    type: ErrorType,
    code: ErrorCode,
    message: z.string(),
    param: z.string().optional(),
    details: z.union([z.array(FieldError), z.record(z.string(), z.unknown())]).optional(),
  }),
  meta: Meta,
})
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>
