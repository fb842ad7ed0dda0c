import { z } from 'zod'
import { Appointment, AppointmentStatus } from './appointment.js'
import { Call, CallStatus } from './call.js'
import { Contact } from './contact.js'
import { oneOfFilter, phoneFilter } from './filterValues.js'
import { Lead, LeadStatus, Urgency } from './lead.js'

/*
 * The registry of resources: one entry per kind of record, in the spec's order. The kinds, the scopes, the list
 * filters and queries, the stored schemas, the API's record routes, the OpenAPI document's named schemas and tags,
 * and the console's choices are all made from it (docs/contributing/internals.md says how to add to it).
 */

/** One filter of a list: the schema of its query parameter's value, and the field of the record it must equal. */
export interface ListFilter<R> {
  value: z.ZodType<string, string>
  field: keyof R & string
}

interface ResourceEntry<S extends z.ZodObject, Scopes extends readonly string[], Filters> {
  /** The record as a list shows it: the single source of its type, its checks and its OpenAPI schema. */
  resource: S
  /** Its name under the OpenAPI document's `components.schemas`. */
  name: string
  /** One record, in words: `No call has the id …`, and its path parameter, `call_id`. */
  singular: string
  /** The OpenAPI tag of its endpoints. */
  tag: string
  /** The scopes of its endpoints: the first reads it (the list and the one record), a second writes it. */
  scopes: Scopes
  /** The list's filters by query parameter, beside `limit`, `cursor` and `since`. */
  filters: Filters
  /** The summary of `GET /v1/{kind}/{singular}_id`, when the API reads one record of the kind. */
  getOne?: string
  /** What a reader of the list must know beyond its summary: the OpenAPI description of `GET /v1/{kind}`. */
  listDescription?: string
  /** The fields the console's World tab shows in its columns. */
  columns: ReadonlyArray<keyof z.infer<S> & string>
  /** The fields that name a record of another kind (its id), and that kind: the console links them. */
  links?: Partial<Record<keyof z.infer<S> & string, 'calls' | 'contacts'>>
}

/** An entry, checked: each filter selects a field of the record, each column is one. */
function resource<
  S extends z.ZodObject,
  const Scopes extends readonly [string, ...string[]],
  const Filters extends Record<string, ListFilter<z.infer<S>>>,
>(entry: ResourceEntry<S, Scopes, Filters>): ResourceEntry<S, Scopes, Filters> {
  return entry
}

export const RESOURCES = {
  calls: resource({
    resource: Call,
    name: 'Call',
    singular: 'call',
    tag: 'Calls',
    scopes: ['calls:read'],
    filters: {
      status: { value: oneOfFilter('status', CallStatus.options), field: 'status' },
      phone: { value: phoneFilter, field: 'caller_phone' },
    },
    getOne: 'Get a call with its messages',
    listDescription:
      'Newest first. A call has no `updated_at`, and `since` compares `created_at`: a call in progress (`in-progress` or `forwarding`, `ended_at` null) ends later, changing its `status`, `ended_at`, `duration_seconds`, `transcript`, `summary` and `transfer_status`, without coming back into a `since` page. To see it end, read each call you hold with `ended_at` null again by id (`GET /v1/calls/{call_id}`) until its `ended_at` is set, or read the list again from the newest back to the oldest of them.',
    columns: ['created_at', 'caller_name', 'status', 'summary'],
    links: { contact_id: 'contacts' },
  }),
  contacts: resource({
    resource: Contact,
    name: 'Contact',
    singular: 'contact',
    tag: 'Contacts',
    scopes: ['contacts:read', 'contacts:write'],
    filters: { phone: { value: phoneFilter, field: 'phone' } },
    getOne: 'Get a contact',
    columns: ['created_at', 'name', 'phone', 'email'],
  }),
  leads: resource({
    resource: Lead,
    name: 'Lead',
    singular: 'lead',
    tag: 'Leads',
    scopes: ['leads:read'],
    filters: {
      status: { value: oneOfFilter('status', LeadStatus.options), field: 'status' },
      urgency: { value: oneOfFilter('urgency', Urgency.options), field: 'urgency' },
    },
    columns: ['created_at', 'caller_name', 'status', 'urgency'],
    links: { call_log_id: 'calls', contact_id: 'contacts' },
  }),
  appointments: resource({
    resource: Appointment,
    name: 'Appointment',
    singular: 'appointment',
    tag: 'Appointments',
    scopes: ['appointments:read'],
    filters: { status: { value: oneOfFilter('status', AppointmentStatus.options), field: 'status' } },
    columns: ['appointment_date', 'caller_name', 'status', 'service_type'],
    links: { call_log_id: 'calls', contact_id: 'contacts' },
  }),
}

export type Kind = keyof typeof RESOURCES
/** The resource a kind's records show as. */
export type ResourceOf<K extends Kind> = z.infer<(typeof RESOURCES)[K]['resource']>

/** The kinds of record, in the spec's order: every list of them, in code and in schemas, is made from this one. */
export const KINDS = Object.keys(RESOURCES) as [Kind, ...Kind[]]

/**
 * One value per kind of record, in the order of `KINDS`.
 *
 * @example
 * byKind(() => z.int()) // { calls: z.int(), contacts: z.int(), leads: z.int(), appointments: z.int() }
 */
export function byKind<V>(make: (kind: Kind) => V): Record<Kind, V> {
  return Object.fromEntries(KINDS.map((kind) => [kind, make(kind)])) as Record<Kind, V>
}

/** A scope an endpoint may require, in the order of the kinds they read or write. */
export type Scope = (typeof RESOURCES)[Kind]['scopes'][number]
export const Scope = z.enum(KINDS.flatMap((kind) => RESOURCES[kind].scopes) as [Scope, ...Scope[]])

/** The scope that reads a kind: its lists and its records. */
export function readScopeOf(kind: Kind): Scope {
  return RESOURCES[kind].scopes[0]
}

/** The names of a list's filters, as a sentence's list: `status, phone and since`. */
export function filterNamesOf(kind: Kind): string {
  const names = [...Object.keys(RESOURCES[kind].filters), 'since']
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
}

/** Every list filter's name, once, in the order the kinds first take them. */
export const FILTER_NAMES = [...new Set(KINDS.flatMap((kind) => Object.keys(RESOURCES[kind].filters)))]
