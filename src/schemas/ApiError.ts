import type { ErrorCode, ErrorType, FieldError } from './envelope.js'

const STATUS_OF: Record<ErrorCode, number> = {
  invalid_parameter: 400,
  unknown_parameter: 400,
  invalid_cursor: 400,
  invalid_json: 400,
  unauthorized: 401,
  insufficient_scope: 403,
  client_not_allowed: 403,
  host_not_allowed: 403,
  origin_not_allowed: 403,
  not_found: 404,
  method_not_allowed: 405,
  contact_exists: 409,
  payload_too_large: 413,
  request_timeout: 408,
  expectation_failed: 417,
  unsupported_media_type: 415,
  validation_failed: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
  storage_unavailable: 503,
  session_exists: 409,
  session_limit_reached: 503,
  fault_rule_limit_reached: 409,
  upstream_unreachable: 502,
  upstream_timeout: 504,
  upstream_not_json: 502,
  upstream_unsafe_url: 502,
}

export interface ApiErrorInit {
  param?: string
  details?: FieldError[] | Record<string, unknown>
  headers?: Record<string, string>
}

/**
 * An answer in the contract's error envelope. Anything in the pipeline may
 * throw one; the pipeline turns it into the response.
 *
 * @example
 * throw new ApiError('invalid_parameter', 'limit must be an integer from 1 to 100.', { param: 'limit' })
 */
export class ApiError extends Error {
  readonly status: number
  readonly type: ErrorType
  readonly init: ApiErrorInit

  constructor(
    readonly code: ErrorCode,
    message: string,
    init: ApiErrorInit = {},
  ) {
    super(message)
    this.status = STATUS_OF[code]
    this.type = errorTypeOf(this.status)
    // Every 401 says how to authenticate (contract section 4), whoever raises it.
    this.init = code === 'unauthorized' ? { ...init, headers: { 'WWW-Authenticate': 'Bearer', ...init.headers } } : init
  }
}

function errorTypeOf(status: number): ErrorType {
  if (status === 401) return 'authentication_error'
  if (status === 403) return 'permission_error'
  if (status === 429) return 'rate_limit_error'
  if (status >= 500) return 'api_error'
  return 'invalid_request_error'
}
