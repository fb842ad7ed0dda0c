import { z } from 'zod'
import { Meta } from '../schemas/index.js'

/* The headers the OpenAPI document describes: on every answer, on errors by status, on the API's answers. */

export const preferHeader = {
  name: 'Prefer',
  in: 'header',
  required: false,
  description:
    "Sandbox only: `code=<status>` answers with that status's error; `delay=<ms>` (at most 60000) waits first. Combine them: `code=429, delay=500`.",
  schema: { type: 'string', examples: ['code=500', 'delay=2000', 'code=429, delay=500'] },
}

/** The schema of `meta.request_id`, for the header that repeats it. */
function requestIdSchema(): Record<string, unknown> {
  const { $schema: _, ...schema } = z.toJSONSchema(Meta.shape.request_id, { target: 'draft-2020-12' })
  return schema
}

/** On every answer. */
export const requestIdHeader = {
  'X-Request-Id': { description: 'The id in meta.request_id.', required: true, schema: requestIdSchema() },
}
export const locationHeader = {
  Location: {
    description: 'Where the created record is read, such as `/v1/contacts/{id}`.',
    required: true,
    schema: { type: 'string' },
  },
}
const retryAfterHeader = {
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
}
/** What an error status always carries besides X-Request-Id. */
export const ERROR_HEADERS: Record<number, Record<string, unknown>> = {
  401: {
    'WWW-Authenticate': {
      description: 'The scheme to authenticate with.',
      required: true,
      schema: { type: 'string', enum: ['Bearer'] },
    },
  },
  405: {
    Allow: {
      description: 'The methods the path takes, such as `GET, POST`.',
      required: true,
      schema: { type: 'string' },
    },
  },
  429: retryAfterHeader,
  503: retryAfterHeader,
}
/** On API answers (not the control plane's) when they apply. */
export const apiHeaders = {
  'X-RateLimit-Limit': {
    description: 'Requests a key may make in a window, when the sandbox simulates a rate limit (`--rate-limit`).',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current window, when the sandbox simulates a rate limit.',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Reset': {
    description: 'When the current window ends, in epoch seconds, when the sandbox simulates a rate limit.',
    schema: { type: 'integer' },
  },
  'Preference-Applied': {
    description: 'The `Prefer` preferences (`code=`, `delay=`) the sandbox applied.',
    schema: { type: 'string' },
  },
}
