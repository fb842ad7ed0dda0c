import { z } from 'zod'
import { linesOf } from '../seed/conversation.js'
import { hash32 } from '../seed/random.js'
import {
  byKind,
  KINDS,
  storedSchemas,
  type CallWithConversation,
  type Kind,
  type StoredContact,
  type WorldRecords,
} from '../schemas/stored.js'
import type { OrganizationFixture } from '../seed/fixtures.js'

/**
 * Records a world starts from instead of its seed (`records`): each kind's stored records, calls with `message_times`.
 */
export type GivenRecords = { [K in Kind]?: readonly unknown[] }

/** Problems shown at most, of records that do not fit: the rest are counted. */
const SHOWN = 10

/** @note Options are resolved again for every session and scenario swap: the same records are checked once. */
const checked = new WeakMap<GivenRecords, { organizations: string; records: WorldRecords }>()

/**
 * Records a world can start from, checked: each against its kind's stored
 * schema, of one of `organizations`, ids unique in their kind, a contact's
 * phone unique in its organization, and a call's `message_times` one
 * epoch-ms time per transcript line. Throws a TypeError listing what does
 * not fit.
 *
 * @example
 * const records = checkedRecords(recording.records, recording.organizations)
 */
export function checkedRecords(given: GivenRecords, organizations: readonly OrganizationFixture[]): WorldRecords {
  const organizationIds = new Set(organizations.map(({ organization_id }) => organization_id))
  const key = [...organizationIds].sort().join(' ')
  const cached = checked.get(given)
  if (cached?.organizations === key) return cached.records
  if (typeof given !== 'object' || given === null)
    throw new TypeError(
      `records must be an object of ${KINDS.slice(0, -1).join(', ')} and ${KINDS.at(-1)}; got ${String(given)}.`,
    )

  const problems: string[] = []
  const records = byKind((): unknown[] => [])
  const phones = new Set<string>()
  for (const kind of KINDS) {
    const list = given[kind] ?? []
    if (!Array.isArray(list)) {
      problems.push(`records.${kind} must be an array`)
      continue
    }
    const ids = new Set<string>()
    list.forEach((record: unknown, i) => {
      const where = `records.${kind}[${i}]`
      const parsed = storedSchemas[kind].safeParse(record)
      if (!parsed.success) {
        for (const issue of parsed.error.issues) problems.push(`${where}.${issue.path.join('.')}: ${issue.message}`)
        return
      }
      const { id, organization_id } = parsed.data
      if (ids.has(id)) problems.push(`${where}: the id ${id} appears twice`)
      ids.add(id)
      if (!organizationIds.has(organization_id))
        problems.push(`${where}: organization ${organization_id} is none of the organizations`)
      if (kind === 'contacts') {
        const phone = `${organization_id} ${(parsed.data as StoredContact).phone}`
        if (phones.has(phone))
          problems.push(
            `${where}: another contact of its organization has the phone ${(parsed.data as StoredContact).phone}`,
          )
        phones.add(phone)
      }
      if (kind === 'calls') {
        const times = (record as { message_times?: unknown }).message_times
        const lines = linesOf((parsed.data as CallWithConversation).transcript)
        if (!MessageTimes.safeParse(times).success || (times as number[]).length !== lines) {
          problems.push(`${where}.message_times: must be ${lines} epoch-ms times, one for each transcript line`)
          return
        }
        records.calls.push({ ...parsed.data, message_times: times })
        return
      }
      records[kind].push(parsed.data)
    })
  }
  if (problems.length > 0) {
    const more = problems.length > SHOWN ? `\n…and ${problems.length - SHOWN} more` : ''
    throw new TypeError(
      `records do not fit (${problems.length} problems):\n${problems.slice(0, SHOWN).join('\n')}${more}`,
    )
  }
  const result = records as unknown as WorldRecords
  checked.set(given, { organizations: key, records: result })
  return result
}

const MessageTimes = z.array(z.int().min(0))

/** @note Every session's options hold the same records: their text is hashed once. */
const hashes = new WeakMap<WorldRecords, number>()

/**
 * A hash of the records a world starts from: part of what the world is
 * (a data file of its writes fits it alone), and of the random streams its
 * writes draw from, so that ids it makes differ from those of the world
 * the records came from, a sandbox of the same seed as often as not.
 *
 * @example
 * recordsHash(options.records!) // 2841924051
 */
export function recordsHash(records: WorldRecords): number {
  let hash = hashes.get(records)
  if (hash === undefined) {
    hash = hash32(JSON.stringify(records))
    hashes.set(records, hash)
  }
  return hash
}
