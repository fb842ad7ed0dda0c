import { z } from 'zod'
import type { ControlRoute } from '../control/ControlRoute.js'
import { sessionRoutes, SESSION_PREFIX, type SessionRoute } from '../control/answerSessions.js'
import { controlRoutes } from '../control/controlRoutes.js'
import { compare, positionOf } from '../data/KeysetIndex.js'
import { matchRoute } from '../http/matchRoute.js'
import { parseQuery } from '../http/parameters.js'
import { FORCEABLE_STATUSES, forcedError, successStatusOf } from '../http/prefer.js'
import { toAppointment, toCall, toCallWithMessages, toContact, toLead, toOrganization } from '../http/resources.js'
import type { Route } from '../http/Route.js'
import { routes } from '../http/routes.js'
import { KeyRing, type ApiKey } from '../sandbox/KeyRing.js'
import { resolveOptions } from '../sandbox/options.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import { ApiError } from '../schemas/ApiError.js'
import { Appointment, Call, CallWithMessages, Contact, CreateContactRequest, ErrorEnvelope, FieldError, Lead, Meta, Organization, Scope, Uuid } from '../schemas/index.js'
import { parseBody } from '../schemas/parseBody.js'
import { messagesOf } from '../world/conversation.js'
import { seedWorld } from '../world/seedWorld.js'

/*
 * The OpenAPI 3.1 document, made from the routes and the zod schemas the
 * handlers check with: there is no second description to drift from them.
 * Its examples are records of the default world and the sandbox's own
 * error answers, made when the document is first asked for.
 */

/**
 * The error envelope as the document describes it: the `details` of an
 * error other than a 422 are the keys the sandbox gives (the zod schema's
 * `Record<string, unknown>`, which a generated client could only type as
 * `unknown`). Strict, so that an answer with a key not listed here fails the
 * test suite, which holds every answer to the document.
 */
const DocumentedErrorEnvelope = ErrorEnvelope.extend({
  error: ErrorEnvelope.shape.error.extend({
    details: z
      .union([
        z.array(FieldError),
        z
          .strictObject({
            /** 409 `contact_exists`: the contact that has the phone. */
            contact_id: Uuid.nullable(),
            /** 403 `insufficient_scope`: the scope the endpoint needs (null: any key). */
            required_scope: Scope.nullable(),
            /** 403 `insufficient_scope`: the scopes the key has. */
            key_scopes: z.array(Scope),
            /** 409 `session_exists`: the session of that name. */
            session: z.string(),
          })
          .partial(),
      ])
      .optional(),
  }),
})

/** Schemas that get a name under `components.schemas`; every other one is inline. */
const named = z.registry<{ id: string }>()
for (const [id, schema] of Object.entries({ Call, CallWithMessages, Contact, Lead, Appointment, Organization, ErrorEnvelope: DocumentedErrorEnvelope, Meta })) {
  named.add(schema, { id })
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'A malformed or out-of-range parameter, an unknown parameter, a bad cursor, or a body that is not a JSON object.',
  401: 'No Authorization header, not `Bearer <key>`, or an unknown key.',
  403: 'The key lacks the scope of the endpoint.',
  404: 'No such path, or no record of that id in the key\'s organization.',
  405: 'The path does not take this method; `Allow` lists those it does.',
  409: 'A contact with this phone already exists (`contact_exists`; `details.contact_id` names it), or a session of that name (`session_exists`).',
  413: 'The body is over 64 KiB.',
  415: 'The body is not sent as JSON.',
  422: 'Body fields are wrong; `details` lists every bad field.',
  429: 'Over the simulated rate limit; `Retry-After` says when to retry.',
  500: 'A failure: asked for (`Prefer: code=500`, `--error-rate`), or of the sandbox itself.',
  503: 'Unavailable: asked for (`Prefer: code=503`) or simulated (`--error-rate`).',
}

const CONTROL_ERRORS = [400, 401, 404, 405, 413, 415, 422, 500]

/** Where the document is served, below the sandbox's base URL. */
export const DOCUMENT_PATH = '/openapi.json'

/** Documents by what they say of a sandbox (its keys, whether it has an admin token): every session of a server shares one. */
const documents = new Map<string, Record<string, unknown>>()

/**
 * The OpenAPI 3.1 document of the API and the control plane, with the
 * sandbox's keys in its description; served at `/openapi.json`. Its
 * `servers` are the bare root and the root of any session (a server
 * variable), or, with `session`, that session's root alone.
 *
 * @example
 * const document = openApiDocument(sandbox)
 * document.paths['/v1/calls'].get.security // [{ bearerAuth: ['calls:read'] }]
 * openApiDocument(world, { session: 'ci-1' }).servers // [{ url: '/sessions/ci-1', … }]
 */
export function openApiDocument(sandbox: Sandbox, { session }: { session?: string } = {}): object {
  const description = describeKeys(sandbox)
  const id = JSON.stringify([sandbox.options.adminToken !== undefined, description])
  let document = documents.get(id)
  if (!document) {
    document = build(sandbox, description)
    documents.set(id, document)
  }
  return { ...document, servers: serversOf(sandbox.options.baseUrl ?? '', session) }
}

function serversOf(base: string, session: string | undefined): object[] {
  if (session !== undefined) return [{ url: `${base}${SESSION_PREFIX}/${session}`, description: `The session ${session}` }]
  return [
    { url: base || '/', description: 'This sandbox: the default session' },
    {
      url: `${base}${SESSION_PREFIX}/{session}`,
      description: 'A session of its own: the same API over a world no other session sees',
      variables: { session: { default: 'my-session', description: '1 to 64 letters, digits, dots, underscores or hyphens' } },
    },
  ]
}

function build(sandbox: Sandbox, description: string): Record<string, unknown> {
  const schemas: Record<string, unknown> = {}
  /** A zod schema as JSON Schema; named sub-schemas go to `components.schemas` and are referred to. */
  const toSchema = (schema: z.ZodType, io: 'input' | 'output') => {
    const converted = z.toJSONSchema(schema, { metadata: named, target: 'draft-2020-12', io, unrepresentable: 'any', override: formatAlone })
    // zod refers to named schemas as `#/$defs/<id>`; in the document they live in `components.schemas`, in paths as much as in components.
    const { $schema: _, $defs, ...json } = JSON.parse(JSON.stringify(converted).replaceAll('"#/$defs/', '"#/components/schemas/'), nullableAsType) as Record<string, unknown>
    Object.assign(schemas, $defs as object | undefined)
    return json
  }
  const paths: Record<string, Record<string, unknown>> = {}
  const operation = (path: string, method: string, value: unknown) => {
    const openApiPath = path.replace(/:(\w+)/g, '{$1}')
    ;(paths[openApiPath] ??= {})[method.toLowerCase()] = value
  }

  for (const route of routes) {
    operation(route.path, route.method, {
      operationId: operationId(route.method, route.path),
      summary: route.summary,
      tags: [tagOf(route.path)],
      security: [{ bearerAuth: route.scope ? [route.scope] : [] }],
      parameters: [...parameters(route.pathParams, 'path', toSchema), ...parameters(route.query, 'query', toSchema), preferHeader],
      ...(route.body && { requestBody: { required: true, content: { 'application/json': { schema: toSchema(route.body, 'input') } } } }),
      responses: {
        [successStatusOf(route)]: success(route, successStatusOf(route), toSchema, apiHeaders),
        ...Object.fromEntries(FORCEABLE_STATUSES.map((status) => [status, { $ref: `#/components/responses/Error${status}` }])),
      },
    })
  }
  for (const route of [...controlRoutes, ...sessionRoutes] as Array<ControlRoute | SessionRoute>) {
    operation(route.path, route.method, {
      operationId: operationId(route.method, route.path),
      summary: route.summary,
      description: route.description,
      tags: ['Sandbox control'],
      security: sandbox.options.adminToken === undefined ? [] : [{ adminToken: [] }],
      parameters: [...('pathParams' in route ? parameters(route.pathParams, 'path', toSchema) : []), ...parameters(route.query, 'query', toSchema)],
      ...(route.body && { requestBody: { required: false, content: { 'application/json': { schema: toSchema(route.body, 'input') } } } }),
      responses: {
        [successStatusOf(route)]: success(route, successStatusOf(route), toSchema, {}),
        ...Object.fromEntries([...CONTROL_ERRORS, ...(('errors' in route && route.errors) || [])].map((status) => [status, { $ref: `#/components/responses/Error${status}` }])),
      },
    })
  }
  // The document itself, which needs neither a key nor the admin token.
  operation(DOCUMENT_PATH, 'GET', {
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI document',
    description: 'The OpenAPI 3.1 document of the API and the control plane. No API key, no admin token.',
    tags: ['Sandbox control'],
    security: [],
    responses: {
      200: {
        description: 'This OpenAPI document',
        headers: requestIdHeader,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' }, components: { type: 'object' } },
              required: ['openapi', 'info', 'paths'],
            },
          },
        },
      },
      405: { $ref: '#/components/responses/Error405' },
    },
  })
  // Converted after the operations, so that it is named in `components.schemas` like the rest.
  const errorSchema = toSchema(DocumentedErrorEnvelope, 'output')
  const examples = examplesOf(sandbox)
  for (const [id, example] of Object.entries(examples.schemas)) {
    // JSON Schema's `examples`: OpenAPI 3.1 deprecates a schema's `example` for it.
    ;(schemas[id] as Record<string, unknown>).examples = [example]
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Call-handling API (call-sandbox)',
      version: '1',
      description,
    },
    tags: [
      { name: 'Calls' },
      { name: 'Contacts' },
      { name: 'Leads' },
      { name: 'Appointments' },
      { name: 'Account' },
      { name: 'Sandbox control', description: "The sandbox's own endpoints, not the API's: reset, simulated calls, the request journal, the clock. No API key." },
    ],
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'A sandbox API key. An operation lists the scope it needs.' },
        ...(sandbox.options.adminToken !== undefined && {
          adminToken: { type: 'http', scheme: 'bearer', description: 'The admin token the server was started with (--admin-token).' },
        }),
      },
      responses: Object.fromEntries(
        FORCEABLE_STATUSES.map((status) => [
          `Error${status}`,
          {
            description: `${ERROR_DESCRIPTIONS[status]} The example answers ${examples.errors[status].request}.`,
            headers: { ...requestIdHeader, ...ERROR_HEADERS[status], ...apiHeaders },
            content: { 'application/json': { schema: errorSchema, example: examples.errors[status].body } },
          },
        ]),
      ),
    },
  }
}

type ToSchema = (schema: z.ZodType, io: 'input' | 'output') => Record<string, unknown>

/** JSON Schema's name for each string format of zod whose regex the document leaves out. */
const FORMATS: Record<string, string> = { uuid: 'uuid', datetime: 'date-time', date: 'date' }

/**
 * An id, a timestamp or a date as its format alone (`type: string, format:
 * uuid`): zod writes the regex it checks with beside the format, or, for a
 * lower-case UUID, two patterns in an `allOf` and no format at all, which a
 * client generator types as `string & unknown`. The sandbox still checks
 * with the regexes; only what the document says changes.
 */
function formatAlone({ zodSchema, jsonSchema }: { zodSchema: z.core.$ZodTypes; jsonSchema: z.core.JSONSchema.BaseSchema }): void {
  const { def } = zodSchema._zod
  if (def.type !== 'string') return
  const formats = [('format' in def ? def.format : undefined), ...(def.checks ?? []).map(({ _zod }) => ('format' in _zod.def ? _zod.def.format : undefined))]
  const format = formats.map((name) => FORMATS[String(name)]).find((name) => name !== undefined)
  if (format === undefined) return
  delete jsonSchema.pattern
  delete jsonSchema.allOf
  jsonSchema.format = format
}

/**
 * zod's nullable (`anyOf: [{ type: 'string', … }, { type: 'null' }]`) as an
 * OpenAPI 3.1 type union (`type: ['string', 'null']`, with null among the
 * values of an enum). A `JSON.parse` reviver: it meets every schema, the
 * innermost first. A nullable `$ref` stays an `anyOf`, having no type to join.
 */
function nullableAsType(_key: string, value: unknown): unknown {
  if (!isObject(value) || !Array.isArray(value.anyOf) || value.anyOf.length !== 2) return value
  const nullAt = value.anyOf.findIndex((branch) => isObject(branch) && Object.keys(branch).length === 1 && branch.type === 'null')
  const schema: unknown = value.anyOf[1 - nullAt]
  if (nullAt === -1 || !isObject(schema) || typeof schema.type !== 'string') return value
  const { anyOf: _, ...rest } = value
  return { ...rest, ...schema, type: [schema.type, 'null'], ...(Array.isArray(schema.enum) && { enum: [...schema.enum, null] }) }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function success(route: Route | ControlRoute | SessionRoute, status: number, toSchema: ToSchema, headers: Record<string, unknown>) {
  return {
    description: route.summary,
    headers: { ...requestIdHeader, ...(status === 201 && locationHeader), ...headers },
    content: { 'application/json': { schema: toSchema(route.response, 'output') } },
  }
}

function parameters(schema: z.ZodObject, where: 'path' | 'query', toSchema: ToSchema) {
  return Object.entries(schema.shape).map(([name, parameter]) => {
    const optional = (parameter as z.ZodType).safeParse(undefined).success
    // The value the parameter stands for (`limit`: an integer from 1 to 100) when JSON Schema can say it,
    // else the text it is sent as (`since`, whose value zod computes with a transform).
    const value = toSchema(parameter as z.ZodType, 'output')
    return { name, in: where, required: where === 'path' || !optional, schema: Object.keys(value).length > 0 ? value : toSchema(parameter as z.ZodType, 'input') }
  })
}

const preferHeader = {
  name: 'Prefer',
  in: 'header',
  required: false,
  description: 'Sandbox only: `code=<status>` answers with that status\'s error; `delay=<ms>` (at most 60000) waits first. Combine them: `code=429, delay=500`.',
  schema: { type: 'string', examples: ['code=500', 'delay=2000', 'code=429, delay=500'] },
}

/** The schema of `meta.request_id`, for the header that repeats it. */
function requestIdSchema(): Record<string, unknown> {
  const { $schema: _, ...schema } = z.toJSONSchema(Meta.shape.request_id, { target: 'draft-2020-12' })
  return schema
}

/** On every answer. */
const requestIdHeader = {
  'X-Request-Id': { description: 'The id in meta.request_id.', required: true, schema: requestIdSchema() },
}
const locationHeader = { Location: { description: 'Where the created record is read, such as `/v1/contacts/{id}`.', required: true, schema: { type: 'string' } } }
const retryAfterHeader = { 'Retry-After': { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'integer', minimum: 1 } } }
/** What an error status always carries besides X-Request-Id. */
const ERROR_HEADERS: Record<number, Record<string, unknown>> = {
  401: { 'WWW-Authenticate': { description: 'The scheme to authenticate with.', required: true, schema: { type: 'string', enum: ['Bearer'] } } },
  405: { Allow: { description: 'The methods the path takes, such as `GET, POST`.', required: true, schema: { type: 'string' } } },
  429: retryAfterHeader,
  503: retryAfterHeader,
}
/** On API answers (not the control plane's) when they apply. */
const apiHeaders = {
  'X-RateLimit-Limit': { description: 'Requests a key may make in a window, when the sandbox simulates a rate limit (`--rate-limit`).', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window, when the sandbox simulates a rate limit.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When the current window ends, in epoch seconds, when the sandbox simulates a rate limit.', schema: { type: 'integer' } },
  'Preference-Applied': { description: 'The `Prefer` preferences (`code=`, `delay=`) the sandbox applied.', schema: { type: 'string' } },
}

/** The instant the examples' world is seeded at: the README's, the stories' and the tests'. */
const EXAMPLE_NOW = '2026-11-20T12:00:00.000Z'
/** The examples' `meta.request_id`: a real one is random, one per answer; this one stands for any. */
const EXAMPLE_REQUEST_ID = 'req_8fKq2LmZx4TnVb7WcR1yHd3J'

interface Examples {
  /** By the schema's name in `components.schemas`. */
  schemas: Record<string, unknown>
  /** By status: the body the sandbox answers, and (in Markdown) the request it answers. */
  errors: Record<ForceableStatus, { request: string; body: unknown }>
}

type ForceableStatus = (typeof FORCEABLE_STATUSES)[number]

let examples: Examples | undefined

/** The examples of every document, made with the first document a process builds. */
function examplesOf(sandbox: Sandbox): Examples {
  examples ??= makeExamples(sandbox)
  return examples
}

/**
 * Records of the default world (the default seed and organizations, seeded
 * at `EXAMPLE_NOW`) as the API shows them: the call of the newest lead, with
 * its messages, its contact and that lead; the newest appointment; the
 * organization as its first key sees it. Only the first organization is
 * seeded: each draws from a random stream of its own, so its records are
 * those of the whole world.
 */
function makeExamples(sandbox: Sandbox): Examples {
  const { seed, now, organizations } = resolveOptions({ now: EXAMPLE_NOW })
  const organization = organizations[0]!
  const world = seedWorld({ seed, now, organizations: [organization] })
  const lead = newest(world.leads)
  const call = world.calls.find(({ id }) => id === lead.call_log_id)!
  const contact = world.contacts.find(({ id }) => id === call.contact_id)!
  const keys = new KeyRing([organization]).all
  const meta = { request_id: EXAMPLE_REQUEST_ID, timestamp: new Date(now).toISOString() }
  const errors = Object.fromEntries(
    Object.entries(errorExamples(sandbox, keys, contact)).map(([status, { request, error }]) => [status, { request, body: { error: errorObjectOf(error), meta } }]),
  ) as Examples['errors']
  return {
    schemas: {
      Call: toCall(call, now),
      CallWithMessages: toCallWithMessages(call, messagesOf(call.transcript, call.message_times), now),
      Contact: toContact(contact),
      Lead: toLead(lead),
      Appointment: toAppointment(newest(world.appointments)),
      Organization: toOrganization(organization, keys[0]!.scopes),
      Meta: meta,
      ErrorEnvelope: errors[400].body,
    },
    errors,
  }
}

/** The record that lists first: the newest. */
function newest<T extends { created_at: string; id: string }>(records: readonly T[]): T {
  return records.reduce((first, record) => (compare(positionOf(record), positionOf(first)) < 0 ? record : first))
}

/**
 * The sandbox's answer to one request of the default world per error
 * status: made by the code that answers it where that code answers at once
 * (a parameter, a path, a method, body fields), else what `Prefer:
 * code=<status>` answers (`forcedError`, which reads the sandbox for a 409
 * only, and that one is not forced here).
 */
function errorExamples(sandbox: Sandbox, keys: ApiKey[], contact: { id: string; phone: string }): Record<ForceableStatus, { request: string; error: ApiError }> {
  const [key] = keys as [ApiKey]
  const routeAt = (method: string, path: string) => matchRoute(routes, method, path).route
  const [listCalls, listLeads, createContact] = [routeAt('GET', '/v1/calls'), routeAt('GET', '/v1/leads'), routeAt('POST', '/v1/contacts')]
  const forced = (status: ForceableStatus, route: Route, apiKey = key) => ({
    request: `\`${route.method} ${route.path}\` with ${apiKey === key ? '' : `the key \`${apiKey.key}\` and `}\`Prefer: code=${status}\``,
    error: forcedError(status, { sandbox, route, apiKey }),
  })
  const answered = (request: string, answer: () => unknown) => ({ request, error: thrownBy(answer) })
  const badContact = { phone: '4155550123', email: 'dana(at)example.com' }
  return {
    400: answered('`GET /v1/calls?limit=500`', () => parseQuery(listCalls, new URLSearchParams({ limit: '500' }))),
    401: forced(401, listCalls),
    403: forced(403, listLeads, keys.find(({ scopes }) => !scopes.includes(listLeads.scope!))),
    404: answered('`GET /v1/call`', () => matchRoute(routes, 'GET', '/v1/call')),
    405: answered('`DELETE /v1/calls`', () => matchRoute(routes, 'DELETE', '/v1/calls')),
    // A phone taken is found in a write (Factories.addContact), which a document built at once cannot wait for:
    // its message is written out here, and a test holds it to the sandbox's answer.
    409: {
      request: `\`POST /v1/contacts\` with \`${JSON.stringify({ phone: contact.phone })}\``,
      error: new ApiError('contact_exists', `A contact with phone ${contact.phone} already exists (${contact.id}).`, { details: { contact_id: contact.id } }),
    },
    413: forced(413, createContact),
    415: forced(415, createContact),
    422: answered(`\`POST /v1/contacts\` with \`${JSON.stringify(badContact)}\``, () => parseBody(CreateContactRequest, badContact)),
    429: forced(429, listCalls),
    500: forced(500, listCalls),
    503: forced(503, listCalls),
  }
}

function thrownBy(answer: () => unknown): ApiError {
  try {
    answer()
  } catch (error) {
    if (error instanceof ApiError) return error
    throw error
  }
  throw new Error('An error example did not fail: its request must be one the sandbox refuses.')
}

/** The `error` of the envelope, as the pipeline writes it (`errorResponse`). */
function errorObjectOf({ type, code, message, init: { param, details } }: ApiError): Record<string, unknown> {
  return { type, code, message, ...(param !== undefined && { param }), ...(details && { details }) }
}

function tagOf(path: string): string {
  const resource = path.split('/')[2] ?? ''
  return resource === 'me' ? 'Account' : resource.charAt(0).toUpperCase() + resource.slice(1)
}

/** `GET /v1/calls/:call_id` → `getCallsCallId`. */
function operationId(method: string, path: string): string {
  const words = path
    .replace(/^\/(v1|_sandbox)\//, (_, prefix: string) => (prefix === 'v1' ? '' : 'sandbox/'))
    .split(/[/:_]+/)
    .filter(Boolean)
  return method.toLowerCase() + words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('')
}

function describeKeys(sandbox: Sandbox): string {
  const rows = sandbox.apiKeys.map(({ key, organization, scopes }) => `| \`${key}\` | ${organization.organization_name} | ${scopes.join(', ')} |`)
  return [
    'The call-handling API as served by call-sandbox: a seeded, stateful sandbox. Send `Authorization: Bearer <key>` with one of these keys:',
    '',
    '| key | organization | scopes |',
    '|---|---|---|',
    ...rows,
    '',
    'Sandbox extras: `Prefer: code=<status>` and `Prefer: delay=<ms>` on any API request, and the control plane under `/_sandbox/`.',
  ].join('\n')
}
