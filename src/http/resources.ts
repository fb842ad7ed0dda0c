import type { z } from 'zod'
import type { StoredCall, StoredRecords } from '../schemas/stored.js'
import {
  byKind,
  Call,
  type Kind,
  RESOURCES,
  type ResourceOf,
  type CallWithMessages,
  type Message,
  type Organization,
  type Scope,
} from '../schemas/index.js'
import type { OrganizationFixture } from '../seed/fixtures.js'

/*
 * Stored records back to the resources the API shows: exactly the fields
 * of the resource's schema, in its order, nothing of the storage.
 */

function projector<S extends z.ZodObject>(schema: S) {
  const keys = Object.keys(schema.shape)
  return (record: Record<string, unknown>): z.infer<S> => {
    const resource: Record<string, unknown> = {}
    for (const key of keys) resource[key] = record[key]
    return resource as z.infer<S>
  }
}

const callFields = projector(Call)

/** A call as lists show it; a live call's duration counts up to `now`. */
export function toCall(record: StoredCall, now: number): Call {
  const call = callFields(record)
  if (call.ended_at === null)
    call.duration_seconds = Math.max(0, Math.floor((now - Date.parse(call.started_at)) / 1_000))
  return call
}

/** A call with its conversation, as `GET /v1/calls/:call_id` shows it. */
export function toCallWithMessages(record: StoredCall, messages: Message[], now: number): CallWithMessages {
  return { ...toCall(record, now), messages }
}

const projections = byKind((kind) => projector(RESOURCES[kind].resource))

/** A stored record of `kind` as its resource: the fields of the kind's schema in the registry. */
export function resourceOf<K extends Kind>(kind: K): (record: StoredRecords[K]) => ResourceOf<K> {
  return projections[kind] as unknown as (record: StoredRecords[K]) => ResourceOf<K>
}

export const toContact = resourceOf('contacts')
export const toLead = resourceOf('leads')
export const toAppointment = resourceOf('appointments')

/** `GET /v1/me`: the key's organization and the key's scopes. */
export function toOrganization(organization: OrganizationFixture, scopes: readonly Scope[]): Organization {
  return {
    organization_id: organization.organization_id,
    organization_name: organization.organization_name,
    plan: organization.plan,
    scopes: [...scopes],
  }
}
