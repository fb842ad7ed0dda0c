import { compare, positionOf, type KeysetPosition } from '../data/KeysetIndex.js'
import type { ApiEndpoint as Route } from '../http/Endpoint.js'
import { ApiError } from '../schemas/ApiError.js'
import {
  CallWithMessages,
  DEFAULT_LIMIT,
  ErrorCode,
  ErrorEnvelope,
  FILTER_NAMES,
  LIST_FILTERS,
  type ContractRule,
  type ContractViolation,
} from '../schemas/index.js'
import type { Kind } from '../schemas/stored.js'
import { ALWAYS_ALLOWED, type Expectation } from './expectationOf.js'
import type { Forwarded } from './forward.js'
import { shown, strictSchema, violationsOf } from './strictSchema.js'
import { isListedRecord } from './Walks.js'
import { isJsonMediaType } from '../http/body.js'
import { isObject } from '../http/isObject.js'

/** What each rule holds the upstream to, as the drift report says it. */
export const PROMISES: Record<ContractRule, string> = {
  status:
    'The status the contract gives the request (404 unknown path, 405 method, 401 no key, 403 scope, 400 parameters, 415/400/413/422 body, else success).',
  json: 'Every answer is JSON, with Content-Type: application/json.',
  meta: 'Every answer has meta.request_id (req_ and 24 or more url-safe characters) and meta.timestamp (ISO 8601 UTC).',
  request_id: 'The X-Request-Id header is meta.request_id.',
  schema: "Every field of the resource or envelope, of the contract's type and format.",
  url: 'Every URL is http: or https:; an answer with a URL of another scheme (javascript:, data:) is not passed on (502 upstream_unsafe_url).',
  fields: 'No field beyond those the contract gives the resource or envelope.',
  error:
    "An error's code belongs to its status, and its headers are there: WWW-Authenticate on 401, Allow on 405, Retry-After on 429.",
  record: 'GET /v1/…/:id answers that record; a created contact answers 201 with Location: /v1/contacts/{id}.',
  transcript: "A call's transcript is its messages, one Assistant:/Caller: line each.",
  limit: 'At most limit records (50 without one).',
  paging: 'has_more true with a next_cursor and at least one record; has_more false with next_cursor null.',
  order: 'Newest first: created_at descending, then id descending, within a page and from one page to the next.',
  filter: `Every record matches the filters asked for (${FILTER_NAMES.join(', ')}) and was created after since.`,
  duplicate: 'No record twice: not in one page, not across the pages of one walk.',
}

/** An upstream's answer held to the contract. */
export interface ContractCheck {
  violations: ContractViolation[]
  /** The body, when it is JSON. */
  body?: Record<string, unknown>
  /** The records of a successful answer that hold to their schema: a list's items, or its one record. */
  records: Array<Record<string, unknown>>
}

/** The statuses each error code stands for. */
const CODES_OF = new Map<number, string[]>()
for (const code of ErrorCode.options) {
  const { status } = new ApiError(code, '')
  CODES_OF.set(status, [...(CODES_OF.get(status) ?? []), code])
}

/** Headers an error must carry, by status. */
const ERROR_HEADERS: Record<number, string> = { 401: 'WWW-Authenticate', 405: 'Allow', 429: 'Retry-After' }

/**
 * Holds one answer to what the sandbox itself promises for its request:
 * the status, JSON with `meta` and `X-Request-Id`, the schema and field
 * set of the resource or the error envelope, a list's `limit`, paging,
 * order and filters, a record's id and a call's transcript. Across pages
 * (a record seen twice, order from page to page) is `Walks`'s.
 *
 * @example
 * const { violations } = checkUpstreamReply('GET', await expectationOf(request, path, url, undefined), answer)
 */
export function checkUpstreamReply(method: string, expectation: Expectation, answer: Forwarded): ContractCheck {
  const violations: ContractViolation[] = []
  const { status, headers } = answer
  const { route } = expectation

  // Status: what the contract gives this request.
  if (!expectation.statuses.includes(status) && !ALWAYS_ALLOWED.includes(status)) {
    violations.push({
      rule: 'status',
      field: '(status)',
      expected: `${[...new Set(expectation.statuses)].join(' or ')}: ${expectation.because}`,
      got: String(status),
    })
  }
  if (method === 'HEAD') return { violations, records: [] }

  // JSON.
  const body = jsonOf(answer)
  if (typeof body === 'string') {
    violations.push({
      rule: 'json',
      field: '(body)',
      expected: 'a JSON object, Content-Type: application/json',
      got: body,
    })
    return { violations, records: [] }
  }

  // meta.request_id, repeated in X-Request-Id.
  const requestId = (body.meta as { request_id?: unknown } | undefined)?.request_id
  if (typeof requestId === 'string' && headers.get('x-request-id') !== requestId) {
    violations.push({
      rule: 'request_id',
      field: '(header) X-Request-Id',
      expected: shown(requestId),
      got: shown(headers.get('x-request-id') ?? undefined),
    })
  }

  // An error: the envelope, its code for its status, its headers.
  if (status >= 400) {
    violations.push(
      ...violationsOf(strictSchema(ErrorEnvelope).safeParse(body).error?.issues ?? [], body),
      ...errorViolations(status, headers, body, expectation),
    )
    return { violations, body, records: [] }
  }
  if (!route || status < 200 || status > 299) return { violations, body, records: [] }

  // Success: the resource's schema and field set, then what the endpoint promises of it.
  const schemaViolations = violationsOf(strictSchema(route.response).safeParse(body).error?.issues ?? [], body)
  violations.push(...schemaViolations)
  const envelope = shapeOf(route)
  const isList = 'has_more' in envelope
  if (isList && Array.isArray(body.data))
    violations.push(...listViolations(body, kindOf(route), expectation.query ?? {}))
  if (!isList && isObject(body.data))
    violations.push(...recordViolations(route, body.data, expectation, headers, status))
  return { violations, body, records: cleanRecords(body.data, schemaViolations) }
}

/** The body as JSON, or what it is instead, shown. */
function jsonOf({ headers, bytes }: Forwarded): Record<string, unknown> | string {
  const contentType = headers.get('content-type')
  const isJson = isJsonMediaType(contentType)
  const type = contentType ?? 'no Content-Type'
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return `${type}: ${bytes.byteLength} bytes that are not UTF-8`
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return `${type}: ${text === '' ? 'an empty body' : shown(text.slice(0, 80))}`
  }
  if (!isJson) return `${type}: JSON under another Content-Type`
  return isObject(value) ? value : `JSON that is no object: ${shown(value)}`
}

function errorViolations(
  status: number,
  headers: Headers,
  body: Record<string, unknown>,
  expectation: Expectation,
): ContractViolation[] {
  const violations: ContractViolation[] = []
  const code = (body.error as { code?: unknown } | undefined)?.code
  const codes = CODES_OF.get(status) ?? []
  if (ErrorCode.safeParse(code).success && !codes.includes(code as string)) {
    violations.push({
      rule: 'error',
      field: 'error.code',
      expected:
        codes.length > 0
          ? `a code of ${status}: ${codes.join(', ')}`
          : `no error code of the contract's: it has none for ${status}`,
      got: shown(code),
    })
  }
  const header = ERROR_HEADERS[status]
  if (header && !(status === 401 ? /\bbearer\b/i.test(headers.get(header) ?? '') : headers.has(header))) {
    violations.push({
      rule: 'error',
      field: `(header) ${header}`,
      expected: status === 401 ? 'Bearer' : `the header, on every ${status}`,
      got: shown(headers.get(header) ?? undefined),
    })
  }
  if (status === 400 && expectation.wellFormed && code !== 'invalid_cursor') {
    violations.push({
      rule: 'status',
      field: 'error.code',
      expected: 'no 400 but invalid_cursor: the sandbox finds the parameters valid',
      got: shown(code),
    })
  }
  return violations
}

function listViolations(
  body: Record<string, unknown>,
  kind: Kind,
  query: Record<string, unknown>,
): ContractViolation[] {
  const violations: ContractViolation[] = []
  const data = body.data as unknown[]
  const limit = (query.limit as number | undefined) ?? DEFAULT_LIMIT
  if (data.length > limit)
    violations.push({
      rule: 'limit',
      field: 'data',
      expected: `at most ${limit} records`,
      got: `${data.length} records`,
    })

  const { has_more: hasMore, next_cursor: nextCursor } = body
  if (hasMore === true && (typeof nextCursor !== 'string' || nextCursor === '')) {
    violations.push({
      rule: 'paging',
      field: 'next_cursor',
      expected: 'a cursor, as has_more is true',
      got: shown(nextCursor),
    })
  }
  if (hasMore === true && data.length === 0)
    violations.push({ rule: 'paging', field: 'data', expected: 'records, as has_more is true', got: '[]' })
  if (hasMore === false && nextCursor !== null)
    violations.push({
      rule: 'paging',
      field: 'next_cursor',
      expected: 'null, as has_more is false',
      got: shown(nextCursor),
    })

  // Order and repeats within the page.
  const ids = new Set<string>()
  let previous: { item: { created_at: string; id: string }; at: KeysetPosition } | undefined
  data.forEach((item, i) => {
    if (!isListedRecord(item)) return
    const at = positionOf(item)
    if (ids.has(item.id))
      violations.push({
        rule: 'duplicate',
        field: `data[${i}].id`,
        expected: 'an id not listed earlier in the page',
        got: shown(item.id),
      })
    else if (previous && compare(previous.at, at) >= 0) {
      violations.push({
        rule: 'order',
        field: `data[${i}]`,
        expected: `after ${previous.item.created_at} ${previous.item.id} (created_at desc, then id desc)`,
        got: `${item.created_at} ${item.id}`,
      })
    }
    ids.add(item.id)
    previous = { item, at }
  })

  // Filters: every record matches what was asked.
  const filters = Object.entries(LIST_FILTERS[kind]) as Array<[string, { field: string }]>
  data.forEach((item, i) => {
    if (!isObject(item)) return
    for (const [name, { field }] of filters) {
      if (query[name] !== undefined && item[field] !== query[name]) {
        violations.push({
          rule: 'filter',
          field: `data[${i}].${field}`,
          expected: `${shown(query[name])} (${name}=${String(query[name])})`,
          got: shown(item[field]),
        })
      }
    }
    const since = query.since as number | undefined
    if (since !== undefined && typeof item.created_at === 'string' && !(Date.parse(item.created_at) > since)) {
      violations.push({
        rule: 'filter',
        field: `data[${i}].created_at`,
        expected: `after ${new Date(since).toISOString()} (since)`,
        got: shown(item.created_at),
      })
    }
  })
  return violations
}

function recordViolations(
  route: Route,
  record: Record<string, unknown>,
  expectation: Expectation,
  headers: Headers,
  status: number,
): ContractViolation[] {
  const violations: ContractViolation[] = []
  const [idParam] = Object.keys(route.pathParams.shape)
  const asked = idParam === undefined ? undefined : expectation.pathValues?.[idParam]
  if (asked !== undefined && record.id !== asked)
    violations.push({
      rule: 'record',
      field: 'data.id',
      expected: `${shown(asked)}, the id asked for`,
      got: shown(record.id),
    })
  if (status === 201) {
    const location = headers.get('location')
    if (typeof record.id !== 'string' || !location?.endsWith(`/v1/contacts/${record.id}`)) {
      violations.push({
        rule: 'record',
        field: '(header) Location',
        expected: `/v1/contacts/${String(record.id)}`,
        got: shown(location ?? undefined),
      })
    }
  }
  if (
    shapeOf(route).data === CallWithMessages &&
    Array.isArray(record.messages) &&
    typeof record.transcript === 'string'
  ) {
    const told = record.messages
      .map(
        (message: { role?: unknown; content?: unknown }) =>
          `${message?.role === 'assistant' ? 'Assistant' : 'Caller'}: ${String(message?.content)}`,
      )
      .join('\n')
    if (told !== record.transcript)
      violations.push({
        rule: 'transcript',
        field: 'data.transcript',
        expected: shown(told),
        got: shown(record.transcript),
      })
  }
  return violations
}

/** The records of `data` that no schema or field violation points into. */
function cleanRecords(data: unknown, schemaViolations: ContractViolation[]): Array<Record<string, unknown>> {
  const fields = schemaViolations.map(({ field }) => field)
  if (Array.isArray(data)) {
    const bad = new Set(fields.flatMap((field) => /^data\[(\d+)\]/.exec(field)?.[1] ?? []).map(Number))
    if (fields.some((field) => field === 'data')) return []
    return data.filter((item, i) => isObject(item) && !bad.has(i)) as Array<Record<string, unknown>>
  }
  return isObject(data) && !fields.some((field) => field === 'data' || field.startsWith('data.')) ? [data] : []
}

/** The fields of a route's success envelope: `data` and `meta`, and a list's `has_more` and `next_cursor`. */
function shapeOf(route: Route): Record<string, unknown> {
  return (route.response as unknown as { shape: Record<string, unknown> }).shape
}

/** The kind of records a route answers with: `/v1/calls`, `/v1/calls/:call_id` → `calls`. */
export function kindOf(route: Route): Kind {
  return route.path.split('/')[2] as Kind
}
