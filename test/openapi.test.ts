import { compileErrors, validate } from '@readme/openapi-parser'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { controlRoutes } from '../src/control/controlRoutes.js'
import { faultRoutes } from '../src/control/faultRoutes.js'
import { livenessRoutes } from '../src/control/controlPlane.js'
import { sessionRoutes } from '../src/control/sessionRoutes.js'
import { FORCEABLE_STATUSES } from '../src/http/prefer.js'
import { routes } from '../src/http/routes.js'
import { createSandbox, type Sandbox } from '../src/index.js'
import { ApiError } from '../src/schemas/ApiError.js'
import type { ErrorCode } from '../src/schemas/envelope.js'
import { openApiDocument } from '../src/openapi/openApiDocument.js'
import {
  type DocumentValidator,
  DocumentViolation,
  documentValidatorOf,
  type Exchange,
} from './support/documentValidator.js'
import { inProcess, NOW, transports, type Transport } from './support/transports.js'

/*
 * The OpenAPI 3.1 document the sandbox serves at /openapi.json: a valid
 * document (checked by a real validator), every route in it with the scope
 * it needs, and the validator every test's answers are held to.
 */

const ADMIN_TOKEN = 'admin-token-for-tests'
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000'

type Json = Record<string, any>

/** `/v1/calls/:call_id` → `/v1/calls/{call_id}`. */
const templateOf = (path: string) => path.replace(/:(\w+)/g, '{$1}')

/**
 * The contract's statuses of each API endpoint on its own: every one a bad parameter (400), a key (401), the rate
 * limit (429) and a simulated failure (500, 503); a scope (403); an id in the path (404); a body (413, 415, 422) and its
 * conflict (409). A 409 under a GET is only ever forced: its class, 4XX, says so, once.
 */
const OWN_STATUSES: Array<[string, string, number[]]> = [
  ['GET', '/v1/calls', [200, 400, 401, 403, 429, 500, 503]],
  ['GET', '/v1/calls/{call_id}', [200, 400, 401, 403, 404, 429, 500, 503]],
  ['GET', '/v1/contacts', [200, 400, 401, 403, 429, 500, 503]],
  ['POST', '/v1/contacts', [201, 400, 401, 403, 409, 413, 415, 422, 429, 500, 503]],
  ['GET', '/v1/contacts/{contact_id}', [200, 400, 401, 403, 404, 429, 500, 503]],
  ['GET', '/v1/leads', [200, 400, 401, 403, 429, 500, 503]],
  ['GET', '/v1/appointments', [200, 400, 401, 403, 429, 500, 503]],
  ['GET', '/v1/me', [200, 400, 401, 429, 500, 503]],
]

/** Every schema of the document with where it is, examples left out (they are values, not schemas). */
function schemasOf(node: unknown, where = ''): Array<{ where: string; schema: Json }> {
  if (typeof node !== 'object' || node === null) return []
  const here =
    !Array.isArray(node) && ('type' in node || 'anyOf' in node || 'allOf' in node || '$ref' in node)
      ? [{ where, schema: node as Json }]
      : []
  return [
    ...here,
    ...Object.entries(node)
      .filter(([key]) => key !== 'example' && key !== 'examples')
      .flatMap(([key, child]) => schemasOf(child, `${where}/${key}`)),
  ]
}

/** Every property of every object schema of the document: its name and its schema. */
function propertiesOf(document: Json): Array<{ where: string; name: string; schema: Json }> {
  return schemasOf(document).flatMap(({ where, schema }) =>
    Object.entries((schema.properties ?? {}) as Json).map(([name, property]) => ({
      where: `${where}/properties/${name}`,
      name,
      schema: property as Json,
    })),
  )
}

/**
 * A schema with `null` taken out of its type union: `{ type: ['string', 'null'], format }` → `{ type: 'string', format
 * }`.
 */
function withoutNull({ type, ...schema }: Json): Json {
  const types = [type].flat().filter((name) => name !== 'null')
  return { type: types.length === 1 ? types[0] : types, ...schema }
}

const TIMESTAMP_NAME = /(^|_)(at|timestamp|now|time_start|time_end)$/

const named = transports.map((connect) => ({ transport: connect === inProcess ? 'in process' : 'over HTTP', connect }))

const SETUPS = [
  { setup: 'without an admin token', adminToken: undefined },
  { setup: 'with an admin token', adminToken: ADMIN_TOKEN },
]

for (const { setup, adminToken } of SETUPS) {
  describe(`the OpenAPI document of a sandbox ${setup}`, () => {
    let sandbox: Sandbox
    let document: Json
    beforeAll(async () => {
      sandbox = createSandbox({ now: NOW, adminToken })
      await sandbox.ready
      document = openApiDocument(sandbox) as Json
    })
    afterAll(() => sandbox.stop())

    it('is a valid OpenAPI 3.1 document, every $ref resolved (@readme/openapi-parser)', async () => {
      const result = await validate(structuredClone(document) as Parameters<typeof validate>[0])
      expect(result.valid ? [] : compileErrors(result)).toEqual([])
      expect(result.valid).toBe(true)
      expect(document.openapi).toBe('3.1.0')
    })

    it('has an operation for every API route, which needs the bearer key with the scope of the route', () => {
      for (const route of routes) {
        const operation = document.paths[templateOf(route.path)]?.[route.method.toLowerCase()]
        expect(operation, `${route.method} ${route.path}`).toBeDefined()
        expect(operation.security, `${route.method} ${route.path}`).toEqual([
          { bearerAuth: route.requires.scope === null ? [] : [route.requires.scope] },
        ])
        expect(operation.tags).not.toContain('Sandbox control')
      }
      expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' })
    })

    it('declares the path parameters of every API route, and the query parameters it takes', () => {
      for (const route of routes) {
        const operation = document.paths[templateOf(route.path)][route.method.toLowerCase()]
        const declared = (operation.parameters as Json[]).map(({ name, in: where }) => `${where} ${name}`).sort()
        const expected = [
          ...Object.keys(route.pathParams.shape).map((name) => `path ${name}`),
          ...Object.keys(route.query.shape).map((name) => `query ${name}`),
          'header Prefer',
        ].sort()
        expect(declared, `${route.method} ${route.path}`).toEqual(expected)
      }
    })

    it('describes a query parameter by the value it stands for when JSON Schema can say it: limit is an integer from 1 to 100', () => {
      for (const path of ['/v1/calls', '/v1/contacts', '/v1/leads', '/v1/appointments']) {
        const parameters = document.paths[path].get.parameters as Json[]
        expect(parameters.find(({ name }) => name === 'limit')?.schema, path).toEqual({
          type: 'integer',
          minimum: 1,
          maximum: 100,
        })
        expect(parameters.find(({ name }) => name === 'since')?.schema, path).toEqual({ type: 'string' })
      }
      expect(document.paths['/v1/leads'].get.parameters.find(({ name }: Json) => name === 'urgency').schema).toEqual({
        type: 'string',
        enum: ['low', 'medium', 'high'],
      })
    })

    it('takes a path id in either case, as the sandbox does', () => {
      const id = '3f2b8c1e-9d4a-4e7b-8c2f-1a2b3c4d5e6f'
      for (const [path, name] of [
        ['/v1/calls/{call_id}', 'call_id'],
        ['/v1/contacts/{contact_id}', 'contact_id'],
      ] as const) {
        const { schema } = (document.paths[path].get.parameters as Json[]).find((parameter) => parameter.name === name)!
        for (const value of [id, id.toUpperCase()])
          expect(new RegExp(schema.pattern).test(value), `${name} ${value}`).toBe(true)
        expect(new RegExp(schema.pattern).test(`${id}x`), `${name} ${id}x`).toBe(false)
      }
    })

    it('documents the headers answers always carry: X-Request-Id, Location on 201, WWW-Authenticate on 401, Allow on 405, Retry-After on 429 and 503', () => {
      const required = (response: Json) =>
        Object.keys(response.headers)
          .filter((name) => response.headers[name].required)
          .sort()
      const { responses } = document.components
      for (const status of FORCEABLE_STATUSES) {
        const expected =
          { 401: ['WWW-Authenticate'], 405: ['Allow'], 429: ['Retry-After'], 503: ['Retry-After'] }[status as number] ??
          []
        expect(required(responses[`Error${status}`]), `Error${status}`).toEqual([...expected, 'X-Request-Id'].sort())
      }
      expect(required(document.paths['/v1/contacts'].post.responses['201'])).toEqual(['Location', 'X-Request-Id'])
      expect(required(document.paths['/_sandbox/calls'].post.responses['201'])).toEqual(['Location', 'X-Request-Id'])
      expect(required(document.paths['/v1/me'].get.responses['200'])).toEqual(['X-Request-Id'])
    })

    it.each(OWN_STATUSES)(
      'lists for %s %s the statuses it answers on its own, and the forced ones as their class, 4XX',
      (method, path, own) => {
        const { responses } = document.paths[path][method.toLowerCase()]
        expect(Object.keys(responses)).toEqual([...own.map(String), '4XX'])
        for (const status of own.slice(1))
          expect(responses[status]).toEqual({ $ref: `#/components/responses/Error${status}` })
        expect(responses['4XX']).toEqual({ $ref: '#/components/responses/Forced' })
      },
    )

    it('has a line of statuses for every API operation', () => {
      const listed = OWN_STATUSES.map(([method, path]) => `${method} ${path}`)
      expect(listed.sort()).toEqual(routes.map((route) => `${route.method} ${templateOf(route.path)}`).sort())
    })

    it('says of since that it compares created_at, and how a sync sees a call in progress end', () => {
      for (const kind of ['calls', 'contacts', 'leads', 'appointments']) {
        const since = document.paths[`/v1/${kind}`].get.parameters.find((parameter: Json) => parameter.name === 'since')
        expect(since.description, kind).toMatch(/compares `created_at`, not `updated_at`/)
        expect(since.schema).toEqual({ type: 'string' })
      }
      expect(document.paths['/v1/calls'].get.description).toMatch(/again by id \(`GET \/v1\/calls\/\{call_id\}`\)/)
    })

    it('says once what Prefer: code= forces, naming every status it takes', () => {
      const { description } = document.components.responses.Forced
      expect(description).toContain('`Prefer: code=<status>`')
      expect(description).toContain(FORCEABLE_STATUSES.join(', '))
      expect(document.components.responses.Forced.content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/ErrorEnvelope',
      })
    })

    it('describes every error status Prefer: code= can force, with the error envelope', () => {
      for (const status of FORCEABLE_STATUSES) {
        expect(document.components.responses[`Error${status}`].content['application/json'].schema).toEqual({
          $ref: '#/components/schemas/ErrorEnvelope',
        })
      }
    })

    it(`has every control route, tagged 'Sandbox control', ${adminToken ? 'behind the admin token' : 'open to all'}`, () => {
      for (const route of controlRoutes) {
        const operation = document.paths[route.path]?.[route.method.toLowerCase()]
        expect(operation, `${route.method} ${route.path}`).toBeDefined()
        expect(operation.tags).toEqual(['Sandbox control'])
        // The probes (readiness here, liveness in its own plane) want no token: an orchestrator asks them.
        const guarded = adminToken && route.requires === 'admin token'
        expect(operation.security, `${route.method} ${route.path}`).toEqual(guarded ? [{ adminToken: [] }] : [])
        expect(Object.keys(operation.responses)).toContain(String(route.status ?? 200))
      }
      expect(document.components.securitySchemes.adminToken).toEqual(
        adminToken ? expect.objectContaining({ type: 'http', scheme: 'bearer' }) : undefined,
      )
      expect(document.tags).toContainEqual(expect.objectContaining({ name: 'Sandbox control' }))
    })

    it("has GET /openapi.json itself, tagged 'Sandbox control', open to all", () => {
      expect(document.paths['/openapi.json'].get).toMatchObject({ tags: ['Sandbox control'], security: [] })
    })

    it('has no operation but those of the routes, the probes, the control plane, the sessions and /openapi.json', () => {
      const operations = Object.entries(document.paths as Json).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
      )
      const expected = [...routes, ...livenessRoutes, ...controlRoutes, ...faultRoutes, ...sessionRoutes].map(
        ({ method, path }) => `${method} ${templateOf(path)}`,
      )
      expect(operations.sort()).toEqual([...expected, 'GET /openapi.json'].sort())
    })

    it('gives every operation an operationId of its own', () => {
      const ids = Object.values(document.paths as Json).flatMap((item) =>
        Object.values(item as Json).map((operation) => operation.operationId),
      )
      expect(new Set(ids).size).toBe(ids.length)
    })

    it('describes every id as type string, format uuid, without a pattern or an allOf', () => {
      // A record's id; a fault rule's is the sandbox's own (flt_1), as a request id is.
      const ids = propertiesOf(document).filter(
        ({ name, where }) =>
          (name === 'id' || (name.endsWith('_id') && !name.endsWith('request_id'))) &&
          !where.includes('/_sandbox/faults'),
      )
      expect(ids.map(({ name }) => name)).toEqual(
        expect.arrayContaining(['id', 'contact_id', 'call_log_id', 'assistant_id', 'organization_id']),
      )
      for (const { where, schema } of ids)
        expect(withoutNull(schema), where).toEqual({ type: 'string', format: 'uuid' })
    })

    it('describes every timestamp as type string, format date-time, with no regex beside it', () => {
      const timestamps = propertiesOf(document).filter(({ name }) => TIMESTAMP_NAME.test(name))
      expect(timestamps.map(({ name }) => name)).toEqual(
        expect.arrayContaining([
          'created_at',
          'updated_at',
          'started_at',
          'ended_at',
          'last_call_at',
          'timestamp',
          'appointment_time_start',
        ]),
      )
      for (const { where, schema } of timestamps)
        expect(withoutNull(schema), where).toEqual({ type: 'string', format: 'date-time' })
      expect(document.components.schemas.Appointment.properties.appointment_date).toEqual({
        type: 'string',
        format: 'date',
      })
    })

    it('has no pattern beside a format, and no allOf, anywhere', () => {
      for (const { where, schema } of schemasOf(document)) {
        expect(schema.allOf, where).toBeUndefined()
        if (['uuid', 'date-time', 'date'].includes(schema.format)) expect(schema.pattern, where).toBeUndefined()
      }
    })

    it('describes a nullable field as an OpenAPI 3.1 type union, an enum with null among its values, never as anyOf with null', () => {
      for (const { where, schema } of schemasOf(document)) {
        expect((schema.anyOf ?? []) as Json[], where).not.toContainEqual({ type: 'null' })
      }
      const { Call, Contact } = document.components.schemas
      expect(Call.properties.transfer_status).toEqual({
        type: ['string', 'null'],
        enum: ['initiated', 'completed', 'failed', null],
      })
      expect(Call.properties.ended_at).toEqual({ type: ['string', 'null'], format: 'date-time' })
      expect(Contact.properties.name).toEqual({ type: ['string', 'null'] })
      expect(Call.properties.status).toEqual({
        type: 'string',
        enum: ['completed', 'failed', 'blocked', 'in-progress', 'forwarding'],
      })
    })

    it('gives every named schema an example (JSON Schema examples) that its schema allows', () => {
      const validator = documentValidatorOf(sandbox)
      const names = Object.keys(document.components.schemas)
      expect(names.sort()).toEqual([
        'Appointment',
        'Call',
        'CallWithMessages',
        'Contact',
        'ErrorEnvelope',
        'Lead',
        'Meta',
        'Organization',
      ])
      for (const name of names) {
        const { examples } = document.components.schemas[name]
        expect(examples, name).toHaveLength(1)
        expect(validator.valueViolations({ $ref: `#/components/schemas/${name}` }, examples[0]), name).toEqual([])
      }
    })

    it('gives every error response an example of its status that its schema allows, and names the request it answers', () => {
      const validator = documentValidatorOf(sandbox)
      for (const status of FORCEABLE_STATUSES) {
        const response = document.components.responses[`Error${status}`]
        const { schema, example } = response.content['application/json']
        expect(example, `Error${status}`).toBeDefined()
        expect(validator.valueViolations(schema, example), `Error${status}`).toEqual([])
        expect(new ApiError(example.error.code as ErrorCode, '').status, `Error${status}`).toBe(status)
        expect(response.description, `Error${status}`).toMatch(/The example answers `(GET|POST|DELETE) \/v1\//)
      }
    })
  })
}

for (const { transport, connect } of named) {
  describe(`GET /openapi.json, ${transport}`, () => {
    for (const { setup, adminToken } of SETUPS) {
      describe(setup, () => {
        let api: Transport
        beforeAll(async () => {
          api = await connect({ adminToken })
        })
        afterAll(async () => {
          api.sandbox.stop()
          await api.close()
        })

        it('serves the document as JSON, with neither an API key nor the admin token', async () => {
          const answer = await api.request('/openapi.json', { key: null })
          expect(answer.status).toBe(200)
          expect(answer.headers.get('content-type')).toMatch(/^application\/json/)
          expect(answer.body).toEqual(JSON.parse(JSON.stringify(openApiDocument(api.sandbox))))
        })

        it("names this sandbox as its server (its origin in process, '/' for the standalone server), and any session's root with a variable", async () => {
          const { body } = await api.request('/openapi.json', { key: null })
          const base = api.name === 'in-process' ? 'https://api.call-sandbox.test' : ''
          expect(body.servers).toEqual([
            { url: base || '/', description: 'This sandbox: the default session' },
            {
              url: `${base}/sessions/{session}`,
              description: expect.stringContaining('session'),
              variables: { session: expect.objectContaining({ default: 'my-session' }) },
            },
          ])
        })

        it("names a session's own root as the server of the session's document", async () => {
          const { status, body } = await api.request('/sessions/ci-1/openapi.json', { key: null })
          expect(status).toBe(200)
          const base = api.name === 'in-process' ? 'https://api.call-sandbox.test' : ''
          expect(body.servers).toEqual([{ url: `${base}/sessions/ci-1`, description: 'The session ci-1' }])
          expect(body.paths).toEqual((await api.request('/openapi.json', { key: null })).body.paths)
        })

        it('answers another method with 405 in the error envelope', async () => {
          const answer = await api.request('/openapi.json', { method: 'POST', key: null })
          expect(answer.status).toBe(405)
          expect(answer.body.error.code).toBe('method_not_allowed')
        })
      })
    }
  })
}

describe('the examples of the document: the default world and the answers of the sandbox', () => {
  let api: Transport
  let document: Json
  beforeAll(async () => {
    // The default world at the instant the examples are seeded at.
    api = await inProcess({ now: NOW })
    document = (await api.request('/openapi.json', { key: null })).body
  })
  afterAll(async () => {
    api.sandbox.stop()
    await api.close()
  })
  const example = (name: string) => document.components.schemas[name].examples[0]

  it('shows records of the default world as the API answers them: the call of the newest lead, its contact, the newest appointment', async () => {
    const call = example('CallWithMessages')
    expect((await api.request(`/v1/calls/${call.id}`)).body.data).toEqual(call)
    const { messages: _, ...listed } = call
    expect(example('Call')).toEqual(listed)
    const calls = await api.request(`/v1/calls?phone=${encodeURIComponent(call.caller_phone)}`)
    expect(calls.body.data).toContainEqual(listed)
    expect((await api.request(`/v1/contacts/${call.contact_id}`)).body.data).toEqual(example('Contact'))
    expect((await api.request('/v1/leads?limit=1')).body.data).toEqual([example('Lead')])
    expect(example('Lead').call_log_id).toBe(call.id)
    expect((await api.request('/v1/appointments?limit=1')).body.data).toEqual([example('Appointment')])
    expect((await api.request('/v1/me')).body.data).toEqual(example('Organization'))
    expect(example('Meta').timestamp).toBe(NOW)
  })

  const json = { 'Content-Type': 'application/json' }
  const REQUESTS: Record<
    (typeof FORCEABLE_STATUSES)[number],
    (contactPhone: string) => {
      path: string
      method?: string
      key?: string
      headers?: Record<string, string>
      body?: string
    }
  > = {
    400: () => ({ path: '/v1/calls?limit=500' }),
    401: () => ({ path: '/v1/calls', headers: { Prefer: 'code=401' } }),
    403: () => ({ path: '/v1/leads', key: 'sk_sandbox_calls', headers: { Prefer: 'code=403' } }),
    404: () => ({ path: '/v1/call' }),
    405: () => ({ path: '/v1/calls', method: 'DELETE' }),
    409: (phone) => ({ path: '/v1/contacts', method: 'POST', headers: json, body: JSON.stringify({ phone }) }),
    413: () => ({ path: '/v1/contacts', method: 'POST', headers: { ...json, Prefer: 'code=413' }, body: '{}' }),
    415: () => ({ path: '/v1/contacts', method: 'POST', headers: { ...json, Prefer: 'code=415' }, body: '{}' }),
    422: () => ({
      path: '/v1/contacts',
      method: 'POST',
      headers: json,
      body: JSON.stringify({ phone: '4155550123', email: 'dana(at)example.com' }),
    }),
    429: () => ({ path: '/v1/calls', headers: { Prefer: 'code=429' } }),
    500: () => ({ path: '/v1/calls', headers: { Prefer: 'code=500' } }),
    503: () => ({ path: '/v1/calls', headers: { Prefer: 'code=503' } }),
  }

  for (const status of FORCEABLE_STATUSES) {
    it(`shows as the example of Error${status} the error the sandbox answers to the request the response names`, async () => {
      const { path, ...options } = REQUESTS[status](example('Contact').phone)
      const response = document.components.responses[`Error${status}`]
      expect(response.description).toContain(`\`${options.method ?? 'GET'} ${path.split('?')[0]}`)
      const answer = await api.request(path, options)
      expect(answer.status).toBe(status)
      expect(answer.body.error).toEqual(response.content['application/json'].example.error)
    })
  }
})

describe('the answer validator every test request goes through (test/support/documentValidator.ts)', () => {
  let sandbox: Sandbox
  let validator: DocumentValidator
  const ORIGIN = 'https://api.call-sandbox.test'
  const meta = { request_id: 'req_abcdefghijklmnopqrstuvwx', timestamp: NOW }
  const contact = {
    id: '3f2b8c1e-9d4a-4e7b-8c2f-1a2b3c4d5e6f',
    phone: '+14155550123',
    name: 'Dana Whitfield',
    email: 'dana@example.com',
    company: null,
    source: 'api',
    total_calls: 0,
    last_call_at: null,
    notes: null,
    created_at: NOW,
    updated_at: NOW,
  }
  const error = { error: { type: 'invalid_request_error', code: 'not_found', message: 'No such thing.' }, meta }
  const exchange = (
    method: string,
    path: string,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): Exchange => ({
    method,
    url: ORIGIN + path,
    status,
    headers: new Headers({ 'Content-Type': 'application/json', 'X-Request-Id': meta.request_id, ...headers }),
    text: typeof body === 'string' ? body : JSON.stringify(body),
  })

  beforeAll(async () => {
    sandbox = createSandbox({ now: NOW })
    await sandbox.ready
    validator = documentValidatorOf(sandbox)
  })
  afterAll(() => sandbox.stop())

  it('allows answers the document describes', () => {
    expect(validator.violations(exchange('GET', `/v1/contacts/${contact.id}`, 200, { data: contact, meta }))).toEqual(
      [],
    )
    expect(
      validator.violations(
        exchange(
          'POST',
          '/v1/contacts',
          201,
          { data: contact, meta },
          { 'Content-Type': 'application/json; charset=utf-8', Location: `/v1/contacts/${contact.id}` },
        ),
      ),
    ).toEqual([])
    expect(
      validator.violations(
        exchange('GET', '/v1/contacts?limit=1', 200, { data: [contact], has_more: true, next_cursor: 'abc', meta }),
      ),
    ).toEqual([])
    expect(validator.violations(exchange('GET', `/v1/contacts/${UNKNOWN_ID}`, 404, error))).toEqual([])
  })

  for (const { wrong, body, problem } of [
    {
      wrong: 'a field of the wrong format',
      body: { data: { ...contact, email: 'not an email' }, meta },
      problem: '/data/email must match format "email"',
    },
    {
      wrong: 'a missing field',
      body: { data: (({ phone: _, ...rest }) => rest)(contact), meta },
      problem: "/data must have required property 'phone'",
    },
    {
      wrong: 'a field the schema does not have',
      body: { data: { ...contact, nickname: 'D' }, meta },
      problem: '/data must NOT have additional properties (nickname)',
    },
    {
      wrong: 'a value outside its enum',
      body: { data: { ...contact, source: 'import' }, meta },
      problem: '/data/source must be equal to one of the allowed values',
    },
    { wrong: 'no meta', body: { data: contact }, problem: "(the body) must have required property 'meta'" },
    { wrong: 'an error envelope for a success', body: error, problem: "(the body) must have required property 'data'" },
  ]) {
    it(`rejects ${wrong} in a 200 answer`, () => {
      expect(validator.violations(exchange('GET', `/v1/contacts/${contact.id}`, 200, body))).toContainEqual(
        expect.stringContaining(problem),
      )
    })
  }

  it('rejects a status the operation does not document', () => {
    expect(validator.violations(exchange('GET', '/v1/me', 202, { data: {}, meta }))).toEqual([
      expect.stringContaining('lists no 202 answer for GET /v1/me'),
    ])
  })

  for (const { wrong, method, path, status, headers, problem } of [
    {
      wrong: 'an X-Request-Id that is no request id',
      method: 'GET',
      path: '/v1/me',
      status: 200,
      headers: { 'X-Request-Id': '42' },
      problem: 'the header X-Request-Id: "42" must match pattern',
    },
    {
      wrong: 'a 201 without Location',
      method: 'POST',
      path: '/v1/contacts',
      status: 201,
      headers: {},
      problem: 'the header Location is missing',
    },
    {
      wrong: 'a 401 without WWW-Authenticate',
      method: 'GET',
      path: '/v1/me',
      status: 401,
      headers: {},
      problem: 'the header WWW-Authenticate is missing',
    },
    {
      wrong: 'a 405 without Allow',
      method: 'POST',
      path: '/v1/me',
      status: 405,
      headers: {},
      problem: 'the header Allow is missing',
    },
    {
      wrong: 'a 429 whose Retry-After is no number of seconds',
      method: 'GET',
      path: '/v1/me',
      status: 429,
      headers: { 'Retry-After': 'soon' },
      problem: 'the header Retry-After: "soon" must be integer',
    },
  ] as Array<{
    wrong: string
    method: string
    path: string
    status: number
    headers: Record<string, string>
    problem: string
  }>) {
    it(`rejects ${wrong}`, () => {
      const body = status < 400 ? { data: contact, meta } : error
      expect(validator.violations(exchange(method, path, status, body, headers))).toContainEqual(
        expect.stringContaining(problem),
      )
    })
  }

  it('rejects a body that is not JSON, or not sent as JSON', () => {
    expect(validator.violations(exchange('GET', '/v1/me', 200, '<html></html>'))).toEqual([
      expect.stringContaining('the body is not JSON'),
    ])
    expect(
      validator.violations(exchange('GET', '/v1/me', 200, { data: {}, meta }, { 'Content-Type': 'text/html' })),
    ).toEqual([expect.stringContaining('Content-Type is text/html')])
  })

  it('holds answers to paths and methods the document does not have to the error envelope of their status', () => {
    expect(validator.violations(exchange('GET', '/v1/nowhere', 404, error))).toEqual([])
    expect(
      validator.violations(
        exchange(
          'DELETE',
          '/v1/calls',
          405,
          { ...error, error: { ...error.error, code: 'method_not_allowed' } },
          { Allow: 'GET' },
        ),
      ),
    ).toEqual([])
    expect(validator.violations(exchange('GET', '/v1/nowhere', 404, { message: 'Not Found' }))).toContainEqual(
      expect.stringContaining("must have required property 'error'"),
    )
    expect(validator.violations(exchange('GET', '/v1/nowhere', 200, { data: {}, meta }))).toEqual([
      expect.stringContaining('answered 200 to a path the document does not have'),
    ])
    expect(validator.violations(exchange('GET', '/v1/nowhere', 404, error, { 'Content-Type': 'text/html' }))).toEqual([
      expect.stringContaining('Content-Type is text/html'),
    ])
  })

  for (const { transport, connect } of named) {
    describe(`wired into the transport ${transport}`, () => {
      let api: Transport
      beforeAll(async () => {
        api = await connect()
      })
      afterAll(async () => {
        api.sandbox.stop()
        await api.close()
      })

      it('fails a request whose answer the document does not allow, naming the request and what is wrong', async () => {
        const id = api.sandbox.db.all('contacts')[0]!.id
        // Behind the data layer's back: a stored contact that its schema would refuse.
        Object.assign(api.sandbox.db.get('contacts', id)!, { email: 'not an email' })
        const request = api.request(`/v1/contacts/${id}`)
        await expect(request).rejects.toBeInstanceOf(DocumentViolation)
        await expect(request).rejects.toThrow(
          `GET /v1/contacts/${id} answered 200, which the OpenAPI document (/openapi.json) does not allow`,
        )
        await expect(request).rejects.toThrow('/data/email must match format "email" (is "not an email")')
      })
    })
  }
})
