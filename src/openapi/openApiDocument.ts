import { z } from 'zod'
import { everyControlEndpoint } from '../control/controlPlane.js'
import { LruMap } from '../data/LruMap.js'
import { type ApiEndpoint, type Endpoint, scopeOf, successStatusOf } from '../http/Endpoint.js'
import { DOCUMENT_PATH, SESSION_PREFIX } from '../http/paths.js'
import { ownErrorStatusesOf } from '../http/apiPlane.js'
import { FORCEABLE_STATUSES } from '../http/prefer.js'
import { kindOfPath, routes } from '../http/routes.js'
import { publicKeysOf, shownCredential } from '../sandbox/credentials.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import {
  CallWithMessages,
  ErrorEnvelope,
  FieldError,
  KINDS,
  Meta,
  Organization,
  RESOURCES,
  Scope,
  SESSION_NAME_RULE,
  Uuid,
} from '../schemas/index.js'
import { documentExamples } from './documentExamples.js'
import { apiHeaders, ERROR_HEADERS, locationHeader, preferHeader, requestIdHeader } from './documentHeaders.js'
import { formatAlone, nullableAsType } from './schemaStyle.js'
import { MAX_LISTED } from '../schemas/parseBody.js'

/*
 * The OpenAPI 3.1 document, made from the routes and the zod schemas the
 * handlers check with: there is no second description to drift from them.
 * Its examples are records of the default world and the sandbox's own
 * error answers, made when the document is first asked for
 * (documentExamples.ts).
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
            /** 409 `session_exists`, 503 `session_limit_reached`: the session of that name. */
            session: z.string(),
            /** 409 `fault_rule_limit_reached`: the most fault rules a world keeps. */
            limit: z.int(),
            /**
             * 404 `not_found` and 400 `unknown_parameter`: the endpoint path or the parameter nearest to the one
             * sent, when one is near enough to be what was meant.
             */
            did_you_mean: z.string(),
          })
          .partial(),
      ])
      .optional(),
  }),
})

/** Schemas that get a name under `components.schemas`; every other one is inline. */
const named = z.registry<{ id: string }>()
for (const [id, schema] of [
  ...KINDS.map((kind) => [RESOURCES[kind].name, RESOURCES[kind].resource] as const),
  ['CallWithMessages', CallWithMessages] as const,
  ['Organization', Organization] as const,
  ['ErrorEnvelope', DocumentedErrorEnvelope] as const,
  ['Meta', Meta] as const,
]) {
  named.add(schema, { id })
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'A malformed or out-of-range parameter, an unknown parameter, a bad cursor, or a body that is not a JSON object.',
  401: 'No Authorization header, not `Bearer <key>`, or an unknown key.',
  403: 'The key lacks the scope of the endpoint.',
  404: "No such path, or no record of that id in the key's organization.",
  405: 'The path does not take this method; `Allow` lists those it does.',
  409: 'A contact with this phone already exists (`contact_exists`; `details.contact_id` names it), a session of that name (`session_exists`), or a world that holds as many fault rules as it keeps (`fault_rule_limit_reached`).',
  413: 'The body is over 64 KiB.',
  415: 'The body is not sent as JSON.',
  422: `Body fields are wrong; \`details\` lists the first ${MAX_LISTED} bad fields, and the message counts the rest.`,
  429: 'Over the simulated rate limit, or a fault rule (`POST /_sandbox/faults`); `Retry-After` says when to retry.',
  500: 'A failure: asked for (`Prefer: code=500`, a fault rule, `--error-rate`), or of the sandbox itself.',
  503: 'Unavailable: asked for (`Prefer: code=503`, a fault rule), simulated (`--error-rate`), a write the store did not take (`storage_unavailable`), or a new session past the limit (`session_limit_reached`, `--session-limit`).',
}

const CONTROL_ERRORS = [400, 401, 404, 405, 413, 415, 422, 500]

/** What `Prefer: code=` can force besides an operation's own statuses (`forcedRanges`). */
const FORCED_DESCRIPTION = `A status the request forced: \`Prefer: code=<status>\` answers any of ${FORCEABLE_STATUSES.join(', ')} with the error that status stands for (a 415 to a GET, a 409 \`contact_exists\` naming the organization's newest contact), whatever the request. An operation lists only the statuses it answers on its own.`

/**
 * Documents by what they say of a sandbox (its keys, whether it has an admin token): every session of a server shares
 * one; sandboxes of other keys (a test suite's, each its own organizations) take turns past 16.
 */
const documents = new LruMap<string, Record<string, unknown>>(16)

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
  if (session !== undefined)
    return [{ url: `${base}${SESSION_PREFIX}/${session}`, description: `The session ${session}` }]
  return [
    { url: base || '/', description: 'This sandbox: the default session' },
    {
      url: `${base}${SESSION_PREFIX}/{session}`,
      description: 'A session of its own: the same API over a world no other session sees',
      variables: {
        session: { default: 'my-session', description: SESSION_NAME_RULE },
      },
    },
  ]
}

function build(sandbox: Sandbox, description: string): Record<string, unknown> {
  const schemas: Record<string, unknown> = {}
  /** A zod schema as JSON Schema; named sub-schemas go to `components.schemas` and are referred to. */
  const toSchema = (schema: z.ZodType, io: 'input' | 'output') => {
    const converted = z.toJSONSchema(schema, {
      metadata: named,
      target: 'draft-2020-12',
      io,
      unrepresentable: 'any',
      override: formatAlone,
    })
    // zod refers to named schemas as `#/$defs/<id>`; in the document they live in `components.schemas`, in paths as
    // much as in components.
    const {
      $schema: _,
      $defs,
      ...json
    } = JSON.parse(
      JSON.stringify(converted).replaceAll('"#/$defs/', '"#/components/schemas/'),
      nullableAsType,
    ) as Record<string, unknown>
    Object.assign(schemas, $defs as object | undefined)
    return json
  }
  const paths: Record<string, Record<string, unknown>> = {}
  const operation = (path: string, method: string, value: unknown) => {
    const openApiPath = path.replace(/:(\w+)/g, '{$1}')
    paths[openApiPath] ??= {}
    paths[openApiPath][method.toLowerCase()] = value
  }

  for (const route of routes) {
    operation(route.path, route.method, {
      operationId: operationId(route.method, route.path),
      summary: route.summary,
      ...(route.description !== undefined && { description: route.description }),
      tags: [tagOf(route.path)],
      security: [{ bearerAuth: scopeOf(route) ? [scopeOf(route)] : [] }],
      parameters: [
        ...parameters(route.pathParams, 'path', toSchema),
        ...parameters(route.query, 'query', toSchema),
        preferHeader,
      ],
      ...(route.body && {
        requestBody: { required: true, content: { 'application/json': { schema: toSchema(route.body, 'input') } } },
      }),
      responses: {
        [successStatusOf(route)]: success(route, successStatusOf(route), toSchema, apiHeaders),
        ...Object.fromEntries(
          ownErrorStatusesOf(route).map((status) => [status, { $ref: `#/components/responses/Error${status}` }]),
        ),
        ...forcedRanges(route),
      },
    })
  }
  for (const route of everyControlEndpoint) {
    operation(route.path, route.method, {
      operationId: operationId(route.method, route.path),
      summary: route.summary,
      description: route.description,
      tags: ['Sandbox control'],
      security:
        sandbox.options.adminToken === undefined || route.requires !== 'admin token' ? [] : [{ adminToken: [] }],
      parameters: [...parameters(route.pathParams, 'path', toSchema), ...parameters(route.query, 'query', toSchema)],
      ...(route.body && {
        requestBody: { required: false, content: { 'application/json': { schema: toSchema(route.body, 'input') } } },
      }),
      responses: {
        [successStatusOf(route)]: success(route, successStatusOf(route), toSchema, {}),
        ...Object.fromEntries(
          [...CONTROL_ERRORS, ...(route.errors ?? [])].map((status) => [
            status,
            { $ref: `#/components/responses/Error${status}` },
          ]),
        ),
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
              properties: {
                openapi: { type: 'string' },
                info: { type: 'object' },
                paths: { type: 'object' },
                components: { type: 'object' },
              },
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
  const examples = documentExamples(sandbox)
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
      ...KINDS.map((kind) => ({ name: RESOURCES[kind].tag })),
      { name: ACCOUNT_TAG },
      {
        name: 'Sandbox control',
        description:
          "The sandbox's own endpoints, not the API's: reset, simulated calls, the request journal, the clock. No API key.",
      },
    ],
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'A sandbox API key. An operation lists the scope it needs.',
        },
        ...(sandbox.options.adminToken !== undefined && {
          adminToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'The admin token the server was started with (--admin-token).',
          },
        }),
      },
      responses: {
        ...Object.fromEntries(
          FORCEABLE_STATUSES.map((status) => [
            `Error${status}`,
            {
              description: `${ERROR_DESCRIPTIONS[status]} The example answers ${examples.errors[status].request}.`,
              headers: { ...requestIdHeader, ...ERROR_HEADERS[status], ...apiHeaders },
              content: { 'application/json': { schema: errorSchema, example: examples.errors[status].body } },
            },
          ]),
        ),
        Forced: {
          description: FORCED_DESCRIPTION,
          headers: { ...requestIdHeader, ...apiHeaders },
          content: { 'application/json': { schema: errorSchema } },
        },
      },
    },
  }
}

type ToSchema = (schema: z.ZodType, io: 'input' | 'output') => Record<string, unknown>

/**
 * The statuses only `Prefer: code=` brings to an operation (a 409 to a GET), as their classes (`4XX`), described once
 * in `Forced`: a class, not `default`, so that a success the operation does not document stays a violation.
 */
function forcedRanges(route: ApiEndpoint): Record<string, unknown> {
  const own = ownErrorStatusesOf(route)
  const forcedOnly = FORCEABLE_STATUSES.filter((status) => !own.includes(status))
  const ranges = new Set(forcedOnly.map((status) => `${String(status)[0]}XX`))
  return Object.fromEntries([...ranges].map((range) => [range, { $ref: '#/components/responses/Forced' }]))
}

function success(route: Endpoint, status: number, toSchema: ToSchema, headers: Record<string, unknown>) {
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
    // Its words (`since`: what it compares) go to the parameter, where a reader of the reference looks.
    const { description } = parameter as z.ZodType
    const { description: _, ...value } = toSchema(parameter as z.ZodType, 'output')
    const { description: __, ...input } = toSchema(parameter as z.ZodType, 'input')
    return {
      name,
      in: where,
      ...(description !== undefined && { description }),
      required: where === 'path' || !optional,
      schema: Object.keys(value).length > 0 ? value : input,
    }
  })
}

/** The endpoints of no kind of record (`/v1/me`) are the key's account. */
const ACCOUNT_TAG = 'Account'

function tagOf(path: string): string {
  const kind = kindOfPath(path)
  return kind === undefined ? ACCOUNT_TAG : RESOURCES[kind].tag
}

/** `GET /v1/calls/:call_id` → `getCallsCallId`. */
function operationId(method: string, path: string): string {
  const words = path
    .replace(/^\/(v1|_sandbox)\//, (_, prefix: string) => (prefix === 'v1' ? '' : 'sandbox/'))
    .split(/[/:_]+/)
    .filter(Boolean)
  return method.toLowerCase() + words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('')
}

/**
 * The keys, as anyone may read them without a token: as `shownCredential` shows them, whole for the built-in keys,
 * the last four characters at most of a user's own organizations' (which may be real-looking or shared).
 */
function describeKeys(sandbox: Sandbox): string {
  const whole = publicKeysOf(sandbox.apiKeys).length > 0
  const rows = sandbox.apiKeys.map(
    ({ key, organization, scopes }) =>
      `| \`${shownCredential(key, sandbox.options.adminToken)}\` | ${organization.organization_name} | ${scopes.join(', ')} |`,
  )
  return [
    whole
      ? 'The call-handling API as served by call-sandbox: a seeded, stateful sandbox. Send `Authorization: Bearer <key>` with one of these keys:'
      : "The call-handling API as served by call-sandbox: a seeded, stateful sandbox. Send `Authorization: Bearer <key>` with a key of one of these organizations: the sandbox's own, from its organizations file, whose keys the server prints at start-up (shown here by their last four characters at most):",
    '',
    '| key | organization | scopes |',
    '|---|---|---|',
    ...rows,
    '',
    'Sandbox extras: `Prefer: code=<status>` and `Prefer: delay=<ms>` on any API request, and the control plane under `/_sandbox/`.',
  ].join('\n')
}
