import type { Organization, Scope } from '../schemas/index.js'
import { KINDS, type Kind } from '../schemas/stored.js'
import { linesOf } from '../seed/conversation.js'
import { businessTypes, type OrganizationFixture } from '../seed/fixtures.js'
import { RECORDING_FORMAT, type Recording } from './recording.js'

type Fields = Record<string, unknown>

/** What is recorded of one organization of the upstream. */
interface RecordedOrganization {
  organization: Omit<Organization, 'scopes'>
  /** A stand-in for each key that recorded, with that key's scopes. */
  keys: Array<{ key: string; scopes: Scope[] }>
  records: Record<Kind, Map<string, Fields>>
  /** Contacts by phone: one contact a phone, as the sandbox keeps them. */
  phones: Map<string, string>
  /**
   * When each message of a call was said, from the call's own answer (GET /v1/calls/:id), with the transcript they
   * belong to.
   */
  messageTimes: Map<string, { transcript: unknown; times: number[] }>
}

/**
 * The business type a recorded organization's simulated calls are told in (the upstream says none); the file may name
 * another.
 */
const RECORDED_BUSINESS_TYPE = [...businessTypes.keys()][0]!

/**
 * Keeps what the upstream answered, by the organization of the key that
 * read it (GET /v1/me says which), as a world a sandbox can start from
 * (`recording()`). A record's newest answer wins. Nothing of a request is
 * kept: no key (each key that recorded gets a stand-in, `sk_recorded_1`,
 * …, known in memory only), no header, no cookie; and a record one
 * organization recorded never goes into another's.
 *
 * @example
 * const recorder = new Recorder('https://api.example.com')
 * recorder.keep(token, me, 'calls', page.data, page.meta.timestamp)
 * recorder.recording().records.calls.length
 */
export class Recorder {
  readonly #organizations = new Map<string, RecordedOrganization>()
  /** `kind id` → the organization that recorded it first. */
  readonly #owners = new Map<string, string>()
  /**
   * Each key that recorded → its stand-in and its organization. In memory only: the recording names the stand-in alone.
   */
  readonly #standIns = new Map<string, { key: string; organization_id: string }>()
  #recordedAt: number | undefined
  #listener: (() => void) | undefined

  constructor(readonly upstream: string) {}

  /**
   * Keeps records the upstream answered to `token`, whose organization and
   * scopes are `me`; `kind` undefined keeps only what `me` says (GET /v1/me).
   */
  keep(token: string, me: Organization, kind: Kind | undefined, records: readonly Fields[], at: unknown): void {
    const standIn = this.#standIns.get(token)
    // A key is of one organization: should the upstream name another for it, nothing it reads goes into either.
    if (standIn && standIn.organization_id !== me.organization_id) return
    const recorded = this.#organizationOf(me)
    this.#keyOf(token, me, recorded)
    if (typeof at === 'string' && !Number.isNaN(Date.parse(at)))
      this.#recordedAt = Math.max(this.#recordedAt ?? 0, Date.parse(at))
    if (kind) for (const record of records) this.#keepRecord(recorded, kind, record)
    this.#listener?.()
  }

  /** What was recorded, as a `--world` file holds it. */
  recording(): Recording {
    const recordedAt = this.#recordedAt ?? Date.now()
    const records = Object.fromEntries(KINDS.map((kind) => [kind, [] as Fields[]])) as Record<Kind, Fields[]>
    for (const recorded of this.#organizations.values()) {
      const { organization_id } = recorded.organization
      for (const kind of KINDS) {
        for (const record of recorded.records[kind].values()) {
          const stored = { ...record, organization_id }
          records[kind].push(
            kind === 'calls' ? { ...stored, message_times: messageTimesOf(recorded, record, recordedAt) } : stored,
          )
        }
      }
    }
    return {
      format: RECORDING_FORMAT,
      version: 1,
      upstream: this.upstream,
      recorded_at: new Date(recordedAt).toISOString(),
      organizations: [...this.#organizations.values()].map(fixtureOf),
      records: records as Recording['records'],
    }
  }

  /** Calls `listener` after anything was recorded (the server writes its file there); one listener, the last given. */
  onChange(listener: () => void): void {
    this.#listener = listener
  }

  #organizationOf({ organization_id, organization_name, plan }: Organization): RecordedOrganization {
    let recorded = this.#organizations.get(organization_id)
    if (!recorded) {
      recorded = {
        organization: { organization_id, organization_name, plan },
        keys: [],
        records: Object.fromEntries(KINDS.map((kind) => [kind, new Map()])) as Record<Kind, Map<string, Fields>>,
        phones: new Map(),
        messageTimes: new Map(),
      }
      this.#organizations.set(organization_id, recorded)
    }
    recorded.organization = { organization_id, organization_name, plan }
    return recorded
  }

  /** The stand-in of a key, made at its first answer, with the scopes the upstream gives it now. */
  #keyOf(token: string, me: Organization, recorded: RecordedOrganization): void {
    let standIn = this.#standIns.get(token)
    if (standIn === undefined) {
      standIn = { key: `sk_recorded_${this.#standIns.size + 1}`, organization_id: me.organization_id }
      this.#standIns.set(token, standIn)
    }
    const key = recorded.keys.find((candidate) => candidate.key === standIn.key)
    if (key) key.scopes = [...me.scopes]
    else recorded.keys.push({ key: standIn.key, scopes: [...me.scopes] })
  }

  #keepRecord(recorded: RecordedOrganization, kind: Kind, record: Fields): void {
    const id = record.id as string
    const owner = this.#owners.get(`${kind} ${id}`)
    if (owner !== undefined && owner !== recorded.organization.organization_id) return
    if (kind === 'contacts') {
      const holder = recorded.phones.get(record.phone as string)
      if (holder !== undefined && holder !== id) return
      const earlier = recorded.records.contacts.get(id)
      if (earlier) recorded.phones.delete(earlier.phone as string)
      recorded.phones.set(record.phone as string, id)
    }
    this.#owners.set(`${kind} ${id}`, recorded.organization.organization_id)
    const { messages, ...fields } = record
    if (kind === 'calls' && Array.isArray(messages)) {
      recorded.messageTimes.set(id, {
        transcript: fields.transcript,
        times: messages.map((message: { timestamp: string }) => Date.parse(message.timestamp)),
      })
    }
    recorded.records[kind].set(id, fields)
  }
}

/**
 * A call's message times: those of its own answer while its transcript is
 * the same, else spread evenly from its start to its end (or to the
 * recording's instant, for a call still on the line).
 */
function messageTimesOf(recorded: RecordedOrganization, call: Fields, recordedAt: number): number[] {
  const lines = linesOf(String(call.transcript))
  const seen = recorded.messageTimes.get(call.id as string)
  if (seen && seen.transcript === call.transcript && seen.times.length === lines) return seen.times
  const start = Date.parse(call.started_at as string)
  const end = Math.max(start, typeof call.ended_at === 'string' ? Date.parse(call.ended_at) : recordedAt)
  return Array.from({ length: lines }, (_, i) => start + Math.floor((i * (end - start)) / lines))
}

/**
 * A recorded organization as the sandbox's organizations are given: what
 * the upstream said of it, its stand-in keys, and for what the upstream
 * does not say (simulated calls, live mode), a business type, no UTC
 * offset, the area codes of its callers and the assistants of its calls.
 */
function fixtureOf({ organization, keys, records }: RecordedOrganization): OrganizationFixture {
  const areaCodes = new Map<string, number>()
  const assistants = new Set<string>()
  for (const call of records.calls.values()) {
    const areaCode = /^\+1([2-9]\d\d)\d{7}$/.exec(call.caller_phone as string)?.[1]
    if (areaCode) areaCodes.set(areaCode, (areaCodes.get(areaCode) ?? 0) + 1)
    assistants.add(call.assistant_id as string)
  }
  const commonest = [...areaCodes]
    .sort(([, a], [, b]) => b - a)
    .slice(0, 4)
    .map(([code]) => code)
  const assistantIds =
    assistants.size > 0 ? [...assistants] : [`00000000-0000-4000-8000-${organization.organization_id.slice(-12)}`]
  return {
    ...organization,
    business_type: RECORDED_BUSINESS_TYPE,
    utc_offset_minutes: 0,
    area_codes: commonest.length > 0 ? commonest : ['555'],
    assistants: assistantIds.map((assistant_id, i) => ({ assistant_id, name: `Assistant ${i + 1}` })),
    calls: 0,
    api_contacts: 0,
    keys: keys.map(({ key, scopes }) => ({ key, scopes: [...scopes] })),
  }
}
