import type { z } from 'zod'
import type { Filters } from '../data/Database.js'
import { positionOf } from '../data/KeysetIndex.js'
import type { StoredRecords } from '../schemas/stored.js'
import type { ApiKey, Sandbox } from '../sandbox/Sandbox.js'
import {
  CallWithMessages,
  Contact,
  CreateContactRequest,
  DEFAULT_LIMIT,
  KINDS,
  type Kind,
  LIST_FILTERS,
  LIST_QUERIES,
  ListEnvelope,
  NoPath,
  NoQuery,
  Organization,
  RecordEnvelope,
  RESOURCES,
  readScopeOf,
  recordPath,
} from '../schemas/index.js'
import { ApiError } from '../schemas/ApiError.js'
import { decodeCursor } from './cursor.js'
import { resourceOf, toCall, toCallWithMessages, toContact, toOrganization } from './resources.js'
import { arrayJson, jsonOf } from './RawJson.js'
import { nextCursorOf, renderedPage } from './renderedPages.js'
import { type ApiEndpoint, defineEndpoint } from './Endpoint.js'

/*
 * The API's endpoints, made from the registry of resources (src/schemas/registry.ts): each kind's list, and its
 * one-record read where the registry names one. What is particular to a kind is written here only where it differs
 * from a projection of its schema: a call's clock and messages, the contact a key may create, the key's own account.
 */

/** How a kind's records show, where not as their schema's fields as stored. */
const SHOWN: { [K in Kind]?: Shown<K> } = {
  calls: {
    // A live call's duration counts up with the clock: its text is made anew each time.
    inList: (call, now) => (call.ended_at === null ? toCall(call, now) : jsonOf(call, () => toCall(call, 0))),
    steady: (call, now) => (call.ended_at === null ? steadyDuration(Date.parse(call.started_at), now) : ALWAYS),
    one: {
      response: CallWithMessages,
      show: (call, sandbox) => toCallWithMessages(call, sandbox.db.messages(call.id), sandbox.clock.now()),
    },
  },
}

interface Shown<K extends Kind> {
  /** The resource a record shows as in a list at `now` (its JSON text, `jsonOf`, where it does not move with the clock). */
  inList?: (record: StoredRecords[K], now: number) => unknown
  /** Where the listed resource moves with the clock: the instants between which it shows as at `now` (default always). */
  steady?: (record: StoredRecords[K], now: number) => Steady
  /** What `GET /v1/{kind}/{id}` answers instead of the listed resource. */
  one?: { response: z.ZodType; show: (record: StoredRecords[K], sandbox: Sandbox) => unknown }
}

/** The kinds' own routes, besides the list and the one record. */
const EXTRA_ROUTES: { [K in Kind]?: ApiEndpoint[] } = {
  contacts: [
    defineEndpoint({
      method: 'POST',
      path: '/v1/contacts',
      requires: { scope: 'contacts:write' },
      summary: 'Create a contact',
      pathParams: NoPath,
      query: NoQuery,
      body: CreateContactRequest,
      status: 201,
      // contact_exists: a contact of the organization has the phone.
      errors: [409],
      response: RecordEnvelope(Contact),
      answer: async ({ sandbox, apiKey, body }) => {
        // organization_id is no field of the body, but the key's organization.
        const contact = await sandbox.addContact({ ...body, organization_id: apiKey.organization.organization_id })
        return { status: 201, body: { data: toContact(contact) }, headers: { Location: `/v1/contacts/${contact.id}` } }
      },
    }),
  ],
}

/** The API's endpoints, in the order of the spec: each kind's in the registry's order, then the key's account. */
export const routes: readonly ApiEndpoint[] = [
  ...KINDS.flatMap((kind) => [
    listRoute(kind),
    ...(RESOURCES[kind].getOne === undefined ? [] : [recordRoute(kind, RESOURCES[kind].getOne)]),
    ...(EXTRA_ROUTES[kind] ?? []),
  ]),
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

/** The kind an API path serves (`/v1/calls/…` → `calls`), or undefined for the key's account. */
export function kindOfPath(path: string): Kind | undefined {
  const name = path.split('/')[2]
  return KINDS.find((kind) => kind === name)
}

/** `GET /v1/{kind}/:{singular}_id`: one record of the key's organization. */
function recordRoute<K extends Kind>(kind: K, summary: string): ApiEndpoint {
  const { singular } = RESOURCES[kind]
  const shown = (SHOWN[kind] as Shown<K> | undefined)?.one
  const show: (record: StoredRecords[K], sandbox: Sandbox) => unknown = shown?.show ?? resourceOf(kind)
  return defineEndpoint({
    method: 'GET',
    path: `/v1/${kind}/:${singular}_id`,
    requires: { scope: readScopeOf(kind) },
    summary,
    pathParams: recordPath(kind),
    query: NoQuery,
    response: RecordEnvelope(shown?.response ?? RESOURCES[kind].resource),
    answer: ({ sandbox, apiKey, params }) => ({
      body: {
        data: show(ownRecord(sandbox, apiKey, kind, (params as Record<string, string>)[`${singular}_id`]!), sandbox),
      },
    }),
  })
}

/**
 * A list endpoint: newest first, `since`, `limit`, and a keyset cursor bound
 * to the endpoint, the key and the filters.
 */
function listRoute<K extends Kind>(kind: K): ApiEndpoint {
  const show = resourceOf(kind)
  const shown = SHOWN[kind] as Shown<K> | undefined
  const toResource = shown?.inList ?? ((record: StoredRecords[K]) => jsonOf(record, () => show(record)))
  const steady = shown?.steady ?? (() => ALWAYS)
  const filterFields = Object.entries(LIST_FILTERS[kind]) as Array<[string, { field: string }]>
  /**
   * What the answer reads of a query's values, made once for each: `parseUrlQuery` gives back the same frozen values
   * for a query string sent again, so a client that polls pays for its filters' text once.
   */
  const listQueries = new WeakMap<object, ListQuery<K>>()
  const listQueryOf = (values: Record<string, unknown>): ListQuery<K> => {
    let kept = listQueries.get(values)
    if (!kept) {
      const { limit = DEFAULT_LIMIT, cursor, ...filters } = values as { limit?: number; cursor?: string }
      const sinceMs = (filters as { since?: number }).since
      const equals = Object.freeze(equalsOf<K>(filterFields, values))
      const text = JSON.stringify({ sinceMs, limit, equals })
      kept = { limit, cursor, filters: canonical(filters), sinceMs, equals, text }
      listQueries.set(values, kept)
    }
    return kept
  }
  return defineEndpoint({
    method: 'GET',
    path: `/v1/${kind}`,
    requires: { scope: readScopeOf(kind) },
    summary: `List ${kind}`,
    ...(RESOURCES[kind].listDescription !== undefined && { description: RESOURCES[kind].listDescription }),
    pathParams: NoPath,
    query: LIST_QUERIES[kind],
    response: ListEnvelope(RESOURCES[kind].resource),
    answer: ({ sandbox, apiKey, query: values }) => {
      const { limit, cursor, filters, sinceMs, equals, text } = listQueryOf(values)
      const binding = { endpoint: kind, key: apiKey.key, filters }
      const after = cursor === undefined ? undefined : decodeCursor(cursor, binding, sandbox.cursorSecret)
      const organizationId = apiKey.organization.organization_id
      const query = { after, sinceMs, limit, equals }
      const now = sandbox.clock.now()
      // The query's JSON as made once for its values, unless a cursor puts a place in it.
      const queryText = after === undefined ? text : JSON.stringify(query)
      const key = `${sandbox.db.revision} ${kind} ${JSON.stringify(organizationId)} ${queryText}`
      const page = renderedPage(key, now, () => {
        const { records, hasMore } = sandbox.db.page(kind, organizationId, query)
        const [from, until] = records.reduce(
          (window, record) => narrowed(window, steady(record, now)),
          ALWAYS as Steady,
        )
        const data = arrayJson(records.map((record) => toResource(record, now)))
        const last = records.at(-1)
        return { data, hasMore, last: last && positionOf(last), from, until }
      })
      return {
        body: {
          data: page.data,
          has_more: page.hasMore,
          next_cursor: nextCursorOf(page, binding, sandbox.cursorSecret),
        },
      }
    },
  })
}

/** A record of the key's organization, or 404: another organization's id is as unknown as a made-up one. */
function ownRecord<K extends Kind>(sandbox: Sandbox, apiKey: ApiKey, kind: K, id: string): StoredRecords[K] {
  const record = sandbox.db.get(kind, id)
  if (!record || record.organization_id !== apiKey.organization.organization_id) {
    const { singular } = RESOURCES[kind]
    throw new ApiError('not_found', `No ${singular} has the id ${id}.`, { param: `${singular}_id` })
  }
  return record
}

/** A list query's values as its answer reads them, and the JSON of those that pick its page (no cursor). */
interface ListQuery<K extends Kind> {
  limit: number
  cursor: string | undefined
  /** The filters in a fixed order (`canonical`), which a cursor is bound to. */
  filters: string
  sinceMs: number | undefined
  equals: Readonly<Filters<K>>
  text: string
}

/** The instants (epoch ms) between which a resource shows the same: from the first, included, to the second. */
type Steady = readonly [number, number]
const ALWAYS: Steady = [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY]

/** Where two windows overlap. */
function narrowed([from, until]: Steady, [otherFrom, otherUntil]: Steady): Steady {
  return [Math.max(from, otherFrom), Math.min(until, otherUntil)]
}

/** The window in which a live call started at `started` shows the duration it shows at `now` (whole seconds, from 0). */
function steadyDuration(started: number, now: number): Steady {
  const seconds = Math.floor((now - started) / 1_000)
  if (seconds < 1) return [Number.NEGATIVE_INFINITY, started + 1_000]
  return [started + seconds * 1_000, started + (seconds + 1) * 1_000]
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
