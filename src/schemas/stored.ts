import type { z } from 'zod'
import { Appointment } from './appointment.js'
import { Call } from './call.js'
import { Uuid } from './common.js'
import { Contact } from './contact.js'
import { Lead } from './lead.js'

/*
 * What the database stores: the resource as a list shows it, plus the
 * organization it belongs to. Handlers project records back to the
 * resource's own fields before they answer. When each message of a call
 * was said is kept beside the call, not in it: `@msw/data` walks every
 * nested value on each create.
 */
export const StoredCall = Call.extend({ organization_id: Uuid })
export const StoredContact = Contact.extend({ organization_id: Uuid })
export const StoredLead = Lead.extend({ organization_id: Uuid })
export const StoredAppointment = Appointment.extend({ organization_id: Uuid })

export type StoredCall = z.infer<typeof StoredCall>
export type StoredContact = z.infer<typeof StoredContact>
export type StoredLead = z.infer<typeof StoredLead>
export type StoredAppointment = z.infer<typeof StoredAppointment>

/** The kinds of record, in the spec's order: every list of them, in code and in schemas, is made from this one. */
export const KINDS = ['calls', 'contacts', 'leads', 'appointments'] as const
export type Kind = (typeof KINDS)[number]

/**
 * One value per kind of record, in the order of `KINDS`.
 *
 * @example
 * byKind(() => z.int()) // { calls: z.int(), contacts: z.int(), leads: z.int(), appointments: z.int() }
 */
export function byKind<V>(make: (kind: Kind) => V): Record<Kind, V> {
  return Object.fromEntries(KINDS.map((kind) => [kind, make(kind)])) as Record<Kind, V>
}

export const storedSchemas = {
  calls: StoredCall,
  contacts: StoredContact,
  leads: StoredLead,
  appointments: StoredAppointment,
} as const satisfies Record<Kind, z.ZodObject>

export interface StoredRecords {
  calls: StoredCall
  contacts: StoredContact
  leads: StoredLead
  appointments: StoredAppointment
}

/**
 * How a live call ends, told as it starts: once the clock reaches the end,
 * the call takes these fields and its full conversation, and the lead or
 * appointment it brings appears at its own `created_at`.
 */
export interface CallEnding {
  call: Pick<StoredCall, 'status' | 'transfer_status' | 'summary' | 'transcript' | 'ended_at' | 'duration_seconds'> & {
    ended_at: string
  }
  /** When each line of the full transcript was said. */
  message_times: number[]
  /** The email the caller's contact gets, when it has none, for the lead or appointment to carry. */
  contact_email: string | null
  lead?: StoredLead
  appointment?: StoredAppointment
}

/**
 * A call with when each line of its transcript was said (epoch ms), as a story tells it; a live call also with its
 * ending.
 */
export type CallWithConversation = StoredCall & { message_times: number[]; ending?: CallEnding }

/** Every record of a world, by kind: what a seed produces and a reset restores. */
export type WorldRecords = { [K in Kind]: K extends 'calls' ? CallWithConversation[] : StoredRecords[K][] }

/** What was written since a world was loaded, as it stands now. */
export interface DatabaseChanges {
  /** Records inserted, oldest first (calls with their message times). */
  inserted: Array<{ [K in Kind]: { kind: K; record: WorldRecords[K][number] } }[Kind]>
  /** Loaded records since changed, in their current version. */
  changed: Array<{ [K in Kind]: { kind: K; record: StoredRecords[K] } }[Kind]>
}
