import { z } from 'zod'
import { Appointment, Call, Contact, Lead, Uuid } from '../schemas/index.js'

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

export const storedSchemas = {
  calls: StoredCall,
  contacts: StoredContact,
  leads: StoredLead,
  appointments: StoredAppointment,
} as const

export type Kind = keyof typeof storedSchemas
export const KINDS = Object.keys(storedSchemas) as Kind[]

export interface StoredRecords {
  calls: StoredCall
  contacts: StoredContact
  leads: StoredLead
  appointments: StoredAppointment
}

/** A call with when each line of its transcript was said (epoch ms), as a story tells it. */
export type CallWithConversation = StoredCall & { message_times: number[] }

/** Every record of a world, by kind: what a seed produces and a reset restores. */
export type WorldRecords = { [K in Kind]: K extends 'calls' ? CallWithConversation[] : StoredRecords[K][] }

/** What was written since a world was loaded, as it stands now. */
export interface DatabaseChanges {
  /** Records inserted, oldest first (calls with their message times). */
  inserted: Array<{ [K in Kind]: { kind: K; record: WorldRecords[K][number] } }[Kind]>
  /** Loaded records since changed, in their current version. */
  changed: Array<{ [K in Kind]: { kind: K; record: StoredRecords[K] } }[Kind]>
}
