import type { z } from 'zod'
import { Uuid } from './common.js'
import { byKind, type Kind, KINDS, RESOURCES, type ResourceOf } from './registry.js'

export { byKind, type Kind, KINDS }

/*
 * What the database stores: the resource as a list shows it, plus the
 * organization it belongs to. Handlers project records back to the
 * resource's own fields before they answer. When each message of a call
 * was said is kept beside the call, not in it: `@msw/data` walks every
 * nested value on each create.
 */
export type StoredRecords = { [K in Kind]: ResourceOf<K> & { organization_id: string } }

export const storedSchemas = byKind((kind) => RESOURCES[kind].resource.extend({ organization_id: Uuid })) as {
  [K in Kind]: z.ZodType<StoredRecords[K]>
}

export type StoredCall = StoredRecords['calls']
export type StoredContact = StoredRecords['contacts']
export type StoredLead = StoredRecords['leads']
export type StoredAppointment = StoredRecords['appointments']

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
