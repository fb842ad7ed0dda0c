import { compare, positionOf } from '../data/KeysetIndex.js'
import { toAppointment, toCall, toCallWithMessages, toContact, toLead, toOrganization } from '../http/resources.js'
import { resolveOptions } from '../sandbox/options.js'
import type { Appointment, Call, CallWithMessages, Contact, Lead, Organization } from '../schemas/index.js'
import { messagesOf } from '../seed/conversation.js'
import { seedWorld } from '../seed/seedWorld.js'
import { STORY_NOW } from './storySandbox.js'

/** The default world as the first organization's `sk_sandbox_all` key reads it, every list newest first. */
export interface Fixtures {
  /** `GET /v1/me`. */
  me: Organization
  /** `GET /v1/calls`, every page. */
  calls: Call[]
  /** `GET /v1/calls/:call_id` of each call, in the same order. */
  callsWithMessages: CallWithMessages[]
  /** `GET /v1/contacts`, every page. */
  contacts: Contact[]
  /** `GET /v1/leads`, every page. */
  leads: Lead[]
  /** `GET /v1/appointments`, every page. */
  appointments: Appointment[]
}

let world: Fixtures | undefined

/**
 * The default world (seed 1, at {@link STORY_NOW}) as typed records, for
 * components that take data as props: what the API answers in the default
 * story, without a request. Seeded at the first read.
 *
 * @example
 * export const Transcript = { args: { call: fixtures.callsWithMessages[0] } }
 * export const Board = { args: { leads: fixtures.leads.filter((lead) => lead.urgency === 'high') } }
 */
export const fixtures: Readonly<Fixtures> = {
  get me() {
    return defaultWorld().me
  },
  get calls() {
    return defaultWorld().calls
  },
  get callsWithMessages() {
    return defaultWorld().callsWithMessages
  },
  get contacts() {
    return defaultWorld().contacts
  },
  get leads() {
    return defaultWorld().leads
  },
  get appointments() {
    return defaultWorld().appointments
  },
}

function defaultWorld(): Fixtures {
  if (world) return world
  const { seed, now, organizations } = resolveOptions({ now: STORY_NOW })
  const organization = organizations[0]!
  const records = seedWorld({ seed, now, organizations })
  const own = <R extends { organization_id: string; created_at: string; id: string }>(list: R[]): R[] =>
    list
      .filter((record) => record.organization_id === organization.organization_id)
      .sort((a, b) => compare(positionOf(a), positionOf(b)))
  const calls = own(records.calls)
  world = {
    me: toOrganization(organization, organization.keys[0]!.scopes),
    calls: calls.map((call) => toCall(call, now)),
    callsWithMessages: calls.map((call) =>
      toCallWithMessages(call, messagesOf(call.transcript, call.message_times), now),
    ),
    contacts: own(records.contacts).map(toContact),
    leads: own(records.leads).map(toLead),
    appointments: own(records.appointments).map(toAppointment),
  }
  return world
}
