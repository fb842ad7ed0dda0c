import { compare, positionOf } from '../data/KeysetIndex.js'
import { matchRoute } from '../http/matchRoute.js'
import { parseQuery } from '../http/parameters.js'
import { type FORCEABLE_STATUSES, forcedError } from '../http/prefer.js'
import { resourceOf, toCall, toCallWithMessages, toContact, toOrganization } from '../http/resources.js'
import { type ApiEndpoint, scopeOf } from '../http/Endpoint.js'
import { toApiError } from '../http/respond.js'
import { ContactExistsError } from '../sandbox/domainErrors.js'
import { routes } from '../http/routes.js'
import { KeyRing, type ApiKey } from '../sandbox/KeyRing.js'
import { resolveOptions } from '../sandbox/options.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import { ApiError } from '../schemas/ApiError.js'
import { CreateContactRequest, type Kind, KINDS, RESOURCES } from '../schemas/index.js'
import { parseBody } from '../schemas/parseBody.js'
import { messagesOf } from '../seed/conversation.js'
import { seedWorld } from '../seed/seedWorld.js'
import type { StoredRecords } from '../schemas/stored.js'

/*
 * The OpenAPI document's examples: records of the default world and the
 * sandbox's own error answers, so that what a reader (or a client
 * generator) sees is what the sandbox answers. A test holds every one to
 * the sandbox's answer.
 */

/** The instant the examples' world is seeded at: the README's, the stories' and the tests'. */
const EXAMPLE_NOW = '2026-11-20T12:00:00.000Z'
/** The examples' `meta.request_id`: a real one is random, one per answer; this one stands for any. */
const EXAMPLE_REQUEST_ID = 'req_8fKq2LmZx4TnVb7WcR1yHd3J'

export interface DocumentExamples {
  /** By the schema's name in `components.schemas`. */
  schemas: Record<string, unknown>
  /** By status: the body the sandbox answers, and (in Markdown) the request it answers. */
  errors: Record<ForceableStatus, { request: string; body: unknown }>
}

type ForceableStatus = (typeof FORCEABLE_STATUSES)[number]

let examples: DocumentExamples | undefined

/**
 * The examples of every document, made with the first document a process
 * builds: they are records of the default world, not of `sandbox`, so one
 * set serves every sandbox and session, and seeding that world (about 45 ms)
 * is paid once.
 *
 * @example
 * documentExamples(sandbox).schemas.Call // the call of the default world's newest lead
 * documentExamples(sandbox).errors[403].request // '`GET /v1/leads` with the key `sk_sandbox_calls` and …'
 */
export function documentExamples(sandbox: Sandbox): DocumentExamples {
  examples ??= makeExamples(sandbox)
  return examples
}

/**
 * Records of the default world (the default seed and organizations, seeded
 * at `EXAMPLE_NOW`) as the API shows them: the call of the newest lead, with
 * its messages, its contact and that lead; the newest record of every other kind; the
 * organization as its first key sees it. Only the first organization is
 * seeded: each draws from a random stream of its own, so its records are
 * those of the whole world.
 */
function makeExamples(sandbox: Sandbox): DocumentExamples {
  const { seed, now, organizations } = resolveOptions({ now: EXAMPLE_NOW })
  const organization = organizations[0]!
  const world = seedWorld({ seed, now, organizations: [organization] })
  const lead = newest(world.leads)
  const call = world.calls.find(({ id }) => id === lead.call_log_id)!
  const contact = world.contacts.find(({ id }) => id === call.contact_id)!
  const keys = new KeyRing([organization]).all
  const meta = { request_id: EXAMPLE_REQUEST_ID, timestamp: new Date(now).toISOString() }
  const errors = Object.fromEntries(
    Object.entries(errorExamples(sandbox, keys, contact)).map(([status, { request, error }]) => [
      status,
      { request, body: { error: errorObjectOf(error), meta } },
    ]),
  ) as DocumentExamples['errors']
  // The call and contact behind the lead, so that the examples tell one story; every other kind its newest record.
  const picked: { [K in Kind]?: unknown } = { calls: toCall(call, now), contacts: toContact(contact) }
  const example = <K extends Kind>(kind: K) =>
    picked[kind] ?? resourceOf(kind)(newest<StoredRecords[K]>(world[kind] as unknown as StoredRecords[K][]))
  return {
    schemas: {
      ...Object.fromEntries(KINDS.map((kind) => [RESOURCES[kind].name, example(kind)])),
      CallWithMessages: toCallWithMessages(call, messagesOf(call.transcript, call.message_times), now),
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
function errorExamples(
  sandbox: Sandbox,
  keys: ApiKey[],
  contact: { id: string; phone: string },
): Record<ForceableStatus, { request: string; error: ApiError }> {
  const [key] = keys as [ApiKey]
  const routeAt = (method: string, path: string) => matchRoute(routes, method, path).route
  const [listCalls, listLeads, createContact] = [
    routeAt('GET', '/v1/calls'),
    routeAt('GET', '/v1/leads'),
    routeAt('POST', '/v1/contacts'),
  ]
  const forced = (status: ForceableStatus, route: ApiEndpoint, apiKey = key) => ({
    request: `\`${route.method} ${route.path}\` with ${apiKey === key ? '' : `the key \`${apiKey.key}\` and `}\`Prefer: code=${status}\``,
    error: forcedError(status, { sandbox, route, apiKey, endpoints: routes }),
  })
  const answered = (request: string, answer: () => unknown) => ({ request, error: thrownBy(answer) })
  const badContact = { phone: '4155550123', email: 'dana(at)example.com' }
  return {
    400: answered('`GET /v1/calls?limit=500`', () => parseQuery(listCalls, new URLSearchParams({ limit: '500' }))),
    401: forced(401, listCalls),
    403: forced(
      403,
      listLeads,
      keys.find(({ scopes }) => !scopes.includes(scopeOf(listLeads)!)),
    ),
    404: answered('`GET /v1/call`', () => matchRoute(routes, 'GET', '/v1/call')),
    405: answered('`DELETE /v1/calls`', () => matchRoute(routes, 'DELETE', '/v1/calls')),
    // A phone taken is found in a write (Factories.addContact), which a document built at once cannot wait for:
    // the write's error is made here, and mapped as every answer maps it.
    409: {
      request: `\`POST /v1/contacts\` with \`${JSON.stringify({ phone: contact.phone })}\``,
      error: toApiError(new ContactExistsError(contact.phone, contact.id)),
    },
    413: forced(413, createContact),
    415: forced(415, createContact),
    422: answered(`\`POST /v1/contacts\` with \`${JSON.stringify(badContact)}\``, () =>
      parseBody(CreateContactRequest, badContact),
    ),
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

/** The `error` of the envelope, as the pipeline writes it (`errorReply`). */
function errorObjectOf({ type, code, message, init: { param, details } }: ApiError): Record<string, unknown> {
  return { type, code, message, ...(param !== undefined && { param }), ...(details && { details }) }
}
