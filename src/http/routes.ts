import type { z } from 'zod'
import type { Filters } from '../data/Database.js'
import { positionOf } from '../data/KeysetIndex.js'
import type { Kind, StoredRecords } from '../schemas/stored.js'
import type { ApiKey, Sandbox } from '../sandbox/Sandbox.js'
import {
  Appointment,
  Call,
  CallPath,
  CallWithMessages,
  Contact,
  ContactPath,
  CreateContactRequest,
  DEFAULT_LIMIT,
  LIST_FILTERS,
  ListAppointmentsQuery,
  ListCallsQuery,
  ListContactsQuery,
  ListEnvelope,
  ListLeadsQuery,
  Lead,
  NoPath,
  NoQuery,
  Organization,
  RecordEnvelope,
  type Scope,
} from '../schemas/index.js'
import { ApiError } from '../schemas/ApiError.js'
import { decodeCursor, encodeCursor } from './cursor.js'
import { toAppointment, toCall, toCallWithMessages, toContact, toLead, toOrganization } from './resources.js'
import { jsonOf } from './RawJson.js'
import { type ApiEndpoint, defineEndpoint } from './Endpoint.js'

/** The API's endpoints, in the order of the spec. */
export const routes: readonly ApiEndpoint[] = [
  listRoute({
    kind: 'calls',
    requires: { scope: 'calls:read' },
    summary: 'List calls',
    query: ListCallsQuery,
    resource: Call,
    // A live call's duration counts up with the clock: its text is made anew each time.
    toResource: (call, sandbox) =>
      call.ended_at === null ? toCall(call, sandbox.clock.now()) : jsonOf(call, () => toCall(call, 0)),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/v1/calls/:call_id',
    requires: { scope: 'calls:read' },
    summary: 'Get a call with its messages',
    pathParams: CallPath,
    query: NoQuery,
    response: RecordEnvelope(CallWithMessages),
    answer: ({ sandbox, apiKey, params }) => {
      const call = ownRecord(sandbox, apiKey, 'calls', params.call_id)
      return { body: { data: toCallWithMessages(call, sandbox.db.messages(call.id), sandbox.clock.now()) } }
    },
  }),
  listRoute({
    kind: 'contacts',
    requires: { scope: 'contacts:read' },
    summary: 'List contacts',
    query: ListContactsQuery,
    resource: Contact,
    toResource: (contact) => jsonOf(contact, () => toContact(contact)),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/v1/contacts/:contact_id',
    requires: { scope: 'contacts:read' },
    summary: 'Get a contact',
    pathParams: ContactPath,
    query: NoQuery,
    response: RecordEnvelope(Contact),
    answer: ({ sandbox, apiKey, params }) => ({
      body: { data: toContact(ownRecord(sandbox, apiKey, 'contacts', params.contact_id)) },
    }),
  }),
  defineEndpoint({
    method: 'POST',
    path: '/v1/contacts',
    requires: { scope: 'contacts:write' },
    summary: 'Create a contact',
    pathParams: NoPath,
    query: NoQuery,
    body: CreateContactRequest,
    status: 201,
    response: RecordEnvelope(Contact),
    answer: async ({ sandbox, apiKey, body }) => {
      // organization_id is no field of the body, but the key's organization.
      const contact = await sandbox.addContact({ ...body, organization_id: apiKey.organization.organization_id })
      return { status: 201, body: { data: toContact(contact) }, headers: { Location: `/v1/contacts/${contact.id}` } }
    },
  }),
  listRoute({
    kind: 'leads',
    requires: { scope: 'leads:read' },
    summary: 'List leads',
    query: ListLeadsQuery,
    resource: Lead,
    toResource: (lead) => jsonOf(lead, () => toLead(lead)),
  }),
  listRoute({
    kind: 'appointments',
    requires: { scope: 'appointments:read' },
    summary: 'List appointments',
    query: ListAppointmentsQuery,
    resource: Appointment,
    toResource: (appointment) => jsonOf(appointment, () => toAppointment(appointment)),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/v1/me',
    requires: { scope: null },
    summary: 'Get the organization of the key, and its scopes',
    pathParams: NoPath,
    query: NoQuery,
    response: RecordEnvelope(Organization),
    answer: ({ apiKey: { organization, scopes } }) => ({ body: { data: toOrganization(organization, scopes) } }),
  }),
]

interface ListRouteDefinition<K extends Kind, Q extends z.ZodObject> {
  kind: K
  requires: { scope: Scope }
  summary: string
  query: Q
  /** The schema of one listed record. */
  resource: z.ZodType
  /** The resource a record shows as (its JSON text, `jsonOf`, where it does not move with the clock). */
  toResource: (record: StoredRecords[K], sandbox: Sandbox) => unknown
}

/**
 * A list endpoint: newest first, `since`, `limit`, and a keyset cursor bound
 * to the endpoint, the key and the filters.
 */
function listRoute<K extends Kind, Q extends z.ZodObject>(definition: ListRouteDefinition<K, Q>): ApiEndpoint {
  const { kind, requires, summary, query, resource, toResource } = definition
  const filterFields = Object.entries(LIST_FILTERS[kind]) as Array<[string, { field: string }]>
  return defineEndpoint({
    method: 'GET',
    path: `/v1/${kind}`,
    requires,
    summary,
    pathParams: NoPath,
    query,
    response: ListEnvelope(resource),
    answer: ({ sandbox, apiKey, query: values }) => {
      const {
        limit = DEFAULT_LIMIT,
        cursor,
        ...filters
      } = values as { limit?: number; cursor?: string } & Record<string, unknown>
      const binding = { endpoint: kind, key: apiKey.key, filters: canonical(filters) }
      const after = cursor === undefined ? undefined : decodeCursor(cursor, binding, sandbox.cursorSecret)
      const page = sandbox.db.page(kind, apiKey.organization.organization_id, {
        after,
        sinceMs: filters.since as number | undefined,
        limit,
        equals: equalsOf(filterFields, values),
      })
      const last = page.records.at(-1)
      return {
        body: {
          data: page.records.map((record) => toResource(record, sandbox)),
          has_more: page.hasMore,
          next_cursor: page.hasMore && last ? encodeCursor(positionOf(last), binding, sandbox.cursorSecret) : null,
        },
      }
    },
  })
}

/** A record of the key's organization, or 404: another organization's id is as unknown as a made-up one. */
function ownRecord<K extends Kind>(sandbox: Sandbox, apiKey: ApiKey, kind: K, id: string): StoredRecords[K] {
  const record = sandbox.db.get(kind, id)
  if (!record || record.organization_id !== apiKey.organization.organization_id) {
    throw new ApiError('not_found', `No ${kind.slice(0, -1)} has the id ${id}.`, { param: `${kind.slice(0, -1)}_id` })
  }
  return record
}

/** The stored fields a page must match, from the list's filter parameters that were given. */
function equalsOf<K extends Kind>(
  filterFields: Array<[string, { field: string }]>,
  values: Record<string, unknown>,
): Filters<K> {
  const equals: Record<string, unknown> = {}
  for (const [name, { field }] of filterFields) if (values[name] !== undefined) equals[field] = values[name]
  return equals as Filters<K>
}

/** Filters in a fixed order, so that the same filters always bind a cursor the same way. */
function canonical(filters: Record<string, unknown>): string {
  return JSON.stringify(
    Object.keys(filters)
      .sort()
      .map((name) => [name, filters[name]]),
  )
}
