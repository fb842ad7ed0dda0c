import type { Message } from '../schemas/index.js'
import {
  byKind,
  KINDS,
  storedSchemas,
  type CallEnding,
  type CallWithConversation,
  type DatabaseChanges,
  type Kind,
  type StoredCall,
  type StoredContact,
  type StoredRecords,
  type WorldRecords,
} from '../schemas/stored.js'
import { linesOf, messagesOf } from '../seed/conversation.js'
import { nextTurn, SLICE_SIZE } from '../seed/slices.js'
import { ListIndexes, type Page, type PageQuery } from './ListIndexes.js'
import { RecordCollections } from './RecordCollections.js'

export type { Filters, Page, PageQuery } from './ListIndexes.js'

type AnyRecord = StoredRecords[Kind]

/** The last revision given to any database's records: one count for all of them, so no two states share one. */
let lastRevision = 0

/**
 * The sandbox's records: `@msw/data` collections (`RecordCollections`, the
 * one seam with it), plus the indexes a list endpoint needs (by id,
 * contacts by phone, and the `ListIndexes` in list order). Every write goes
 * through here, so the indexes never drift; every write since the last
 * `load` is kept track of, so `rollback` undoes just those (costing what was
 * written, not what was loaded); and a `transaction` that throws is undone.
 * Records handed out are the stored ones: read them, change them only
 * through `update`.
 *
 * @example
 * const db = new Database()
 * await db.load(seedWorld(options))
 * db.page('calls', organizationId, { limit: 50 })
 */
export class Database {
  /** The records as `@msw/data` stores them: loaded, and written since. */
  #collections = new RecordCollections()
  // biome-ignore lint/suspicious/noExplicitAny: as AnyCollection above: a record of any kind, typed where it leaves the class.
  #byId = byKind(() => new Map<string, any>())
  #lists = new ListIndexes()
  #contactsByPhone = new Map<string, string>()
  #messageTimes = new Map<string, number[]>()
  /** How each live call ends (see `CallEnding`); kept beside the call, like its message times, and never changed. */
  #endings = new Map<string, CallEnding>()
  /** Calls whose ending has not fully come (the call is live, or its lead or appointment is still to appear). */
  #pendingEndings = new Set<string>()
  /** Records inserted since the last load, oldest first. */
  #inserted: Array<[Kind, string]> = []
  /** Loaded records changed since the last load, as they were loaded. */
  #originals = new Map<string, [Kind, AnyRecord]>()
  /** What the transaction under way wrote, oldest first, to undo it should it fail. */
  #undo: Undo[] | undefined
  #revision = ++lastRevision

  /**
   * Which state its records are in: a new number whenever a record is filed, changed or dropped, and never that of
   * another database, so that what was made of one state (a rendered page) is known by it.
   */
  get revision(): number {
    return this.#revision
  }

  /** Replaces every record with `world`, a slice at a time, the event loop running between two slices. */
  async load(world: WorldRecords): Promise<void> {
    this.#revision = ++lastRevision
    this.#collections.clear()
    this.#byId = byKind(() => new Map())
    this.#contactsByPhone = new Map()
    this.#messageTimes = new Map()
    this.#endings = new Map()
    this.#pendingEndings = new Set()
    this.#inserted = []
    this.#originals = new Map()
    const lists = ListIndexes.building()
    for (const kind of KINDS) {
      const records = world[kind]
      for (let start = 0; start < records.length; start += SLICE_SIZE) {
        if (start > 0) await nextTurn()
        const slice = records.slice(start, start + SLICE_SIZE)
        const stored = await this.#collections.load(
          kind,
          slice.map((record) => this.#setAside(kind, record)),
        )
        for (const record of stored) {
          this.#remember(kind, record)
          lists.add(kind, record)
        }
      }
    }
    this.#lists = await lists.built()
    this.#revision = ++lastRevision
  }

  /** Whether anything was written since the last load. */
  get changed(): boolean {
    return this.#inserted.length > 0 || this.#originals.size > 0
  }

  /**
   * Undoes every write since the last load: inserted records go, changed
   * ones get their loaded values back. Costs what was written, not what
   * was loaded.
   */
  async rollback(): Promise<void> {
    for (const [kind, id] of this.#inserted) this.#drop(kind, id)
    for (const [kind, original] of this.#originals.values()) {
      this.#forget(kind, this.#byId[kind].get(original.id)!)
      this.#file(kind, original)
    }
    this.#collections.dropWritten()
    this.#inserted = []
    this.#originals = new Map()
    // What had come of the endings may have been undone.
    this.#pendingEndings = new Set(this.#endings.keys())
  }

  /**
   * Runs `write` all or nothing: when it throws, the records it inserted go
   * and those it changed get their earlier versions back, and the error
   * goes on. What it wrote is never left half done. `commit` gets what it
   * wrote, once it has run: when `commit` throws, the write is undone too.
   *
   * @example
   * await db.transaction(async () => {
   *   await db.update('contacts', contact.id, { total_calls: 3 })
   *   await db.insert('calls', call) // throws: the contact is as it was
   * })
   */
  async transaction<T>(write: () => Promise<T>, commit?: (changes: DatabaseChanges) => Promise<void>): Promise<T> {
    if (this.#undo) throw new Error('A transaction is under way: transactions do not nest.')
    const undo: Undo[] = []
    this.#undo = undo
    try {
      const value = await write()
      // What it wrote goes to the store before it counts: a store that refuses undoes it like any failure.
      await commit?.(this.#changesOf(undo))
      return value
    } catch (error) {
      this.#undo = undefined
      for (const step of undo.reverse()) await this.#revert(step)
      // What had come of the endings may have been undone.
      this.#pendingEndings = new Set(this.#endings.keys())
      throw error
    } finally {
      this.#undo = undefined
    }
  }

  /** Undoes one step of a failed transaction, and what it added to the writes since the load. */
  async #revert(step: Undo): Promise<void> {
    if (step.insert) {
      this.#collections.unwrite(step.kind, this.#byId[step.kind].get(step.id)!)
      this.#drop(step.kind, step.id)
      this.#inserted.pop()
    } else if (step.firstChange) {
      // The loaded version comes back as it was: only the new one is dropped.
      const current = this.#byId[step.kind].get(step.previous.id)!
      this.#collections.unwrite(step.kind, current)
      this.#forget(step.kind, current)
      this.#file(step.kind, step.previous)
      this.#originals.delete(recordKey(step.kind, step.previous.id))
    } else {
      await this.#replace(step.kind, step.previous)
    }
  }

  /** What was written since the last load, as it stands now. */
  changes(): DatabaseChanges {
    return {
      inserted: this.#inserted.map(([kind, id]) => this.#asInserted(kind, id)),
      changed: [...this.#originals.values()].map(([kind, original]) => ({
        kind,
        record: this.#byId[kind].get(original.id),
      })),
    }
  }

  /** What one transaction wrote, as it stands now: each record once, in the order it was first written. */
  #changesOf(undo: readonly Undo[]): DatabaseChanges {
    const changes: DatabaseChanges = { inserted: [], changed: [] }
    const seen = new Set<string>()
    for (const step of undo) {
      const id = step.insert ? step.id : step.previous.id
      const key = recordKey(step.kind, id)
      if (seen.has(key)) continue
      seen.add(key)
      if (step.insert) changes.inserted.push(this.#asInserted(step.kind, id))
      else changes.changed.push({ kind: step.kind, record: this.#byId[step.kind].get(id) })
    }
    return changes
  }

  /** An inserted record as `insert` takes it again: a call with its message times and its ending. */
  #asInserted(kind: Kind, id: string): DatabaseChanges['inserted'][number] {
    const record = this.#byId[kind].get(id)
    if (kind !== 'calls') return { kind, record }
    const ending = this.#endings.get(id)
    return { kind, record: { ...record, message_times: this.#timesOf(record), ...(ending && { ending }) } }
  }

  /** A record by id, of any organization. */
  get<K extends Kind>(kind: K, id: string): StoredRecords[K] | undefined {
    return this.#byId[kind].get(id) as StoredRecords[K] | undefined
  }

  /** The conversation of a call, oldest message first. */
  messages(callId: string): Message[] {
    const call = this.get('calls', callId)
    return call ? messagesOf(call.transcript, this.#timesOf(call)) : []
  }

  /**
   * When each line of a call's transcript was said; a call that ended has its full conversation, whose times its ending
   * holds.
   */
  #timesOf(call: StoredCall): number[] {
    const ending = this.#endings.get(call.id)
    return (ending && call.ended_at !== null ? ending.message_times : this.#messageTimes.get(call.id)) ?? []
  }

  /**
   * The endings not fully come yet: the call is still live, or its lead or
   * appointment is still to appear. Those that have fully come drop out as
   * they are met, so this stays as small as what is pending.
   */
  *pendingEndings(): Generator<[string, CallEnding]> {
    for (const callId of this.#pendingEndings) {
      const ending = this.#endings.get(callId)
      const call = this.get('calls', callId)
      const done =
        !ending ||
        !call ||
        (call.ended_at !== null &&
          (!ending.lead || this.get('leads', ending.lead.id)) &&
          (!ending.appointment || this.get('appointments', ending.appointment.id)))
      if (done) this.#pendingEndings.delete(callId)
      else yield [callId, ending]
    }
  }

  /** The contact of `organizationId` whose phone is `phone`. */
  contactByPhone(organizationId: string, phone: string): StoredContact | undefined {
    const id = this.#contactsByPhone.get(`${organizationId} ${phone}`)
    return id === undefined ? undefined : this.get('contacts', id)
  }

  /**
   * A record as it would be stored, checked against its kind's schema, and,
   * for an insert, for an id and (a contact's) phone nobody has yet. Throws
   * what `insert` or `update` would; stores nothing.
   *
   * @example
   * db.check('contacts', contact, { insert: true })
   */
  check<K extends Kind>(kind: K, record: unknown, { insert = false } = {}): StoredRecords[K] {
    const checked = storedSchemas[kind].parse(record) as StoredRecords[K]
    if (insert && this.#byId[kind].has(checked.id))
      throw new Error(`A ${kind} record with the id ${checked.id} exists already.`)
    if (insert && kind === 'contacts' && this.#contactsByPhone.has(phoneKey(checked as StoredContact))) {
      throw new Error(`A contact with the phone ${(checked as StoredContact).phone} exists already.`)
    }
    return checked
  }

  /**
   * Adds a record, checked first: its kind's schema, a new id, a phone no other contact has, a time for each line of a
   * call.
   */
  async insert<K extends Kind>(kind: K, record: WorldRecords[K][number]): Promise<StoredRecords[K]> {
    const checked = this.check(kind, record, { insert: true })
    if (kind === 'calls') {
      const { message_times, ending } = record as CallWithConversation
      if (!hasTimePerLine((checked as StoredCall).transcript, message_times)) {
        throw new Error(
          `The call ${checked.id} needs message_times: one epoch-ms time for each of its ${linesOf((checked as StoredCall).transcript)} transcript lines.`,
        )
      }
      if (ending !== undefined && !hasTimePerLine(ending.call.transcript, ending.message_times)) {
        throw new Error(
          `The ending of the call ${checked.id} needs one epoch-ms time for each of its ${linesOf(ending.call.transcript)} transcript lines.`,
        )
      }
    }
    const stored = await this.#collections.write(kind, checked)
    // Set aside once stored, not before: a settle that walked the pending endings while the write was under way found
    // an ending without its call, took it for done, and the call never ended.
    this.#setAside(kind, record)
    this.#file(kind, stored)
    this.#inserted.push([kind, stored.id])
    this.#undo?.push({ insert: true, kind, id: stored.id })
    return stored
  }

  /** Changes fields of a record; the result is checked against its kind's schema before it is stored. */
  async update<K extends Kind>(kind: K, id: string, changes: Partial<StoredRecords[K]>): Promise<StoredRecords[K]> {
    const current = this.get(kind, id)
    if (!current) throw new Error(`No ${kind} record has the id ${id}.`)
    const next = storedSchemas[kind].parse({
      ...current,
      ...changes,
      id,
      organization_id: current.organization_id,
      created_at: current.created_at,
    })
    const key = recordKey(kind, id)
    // A record not written since the load is a loaded one, changed for the first time.
    const firstChange = !this.#collections.isWritten(kind, id)
    if (firstChange) this.#originals.set(key, [kind, current])
    this.#undo?.push({ insert: false, kind, previous: current, firstChange })
    return (await this.#replace(kind, next)) as StoredRecords[K]
  }

  /** One page of an organization's records, newest first. */
  page<K extends Kind>(kind: K, organizationId: string, query: PageQuery<K>): Page<StoredRecords[K]> {
    return this.#lists.page(kind, organizationId, query, (id) => this.get(kind, id)!)
  }

  /** How many records of `kind` an organization has (or all organizations). */
  count(kind: Kind, organizationId?: string): number {
    if (organizationId === undefined) return this.#byId[kind].size
    return this.#lists.size(kind, organizationId)
  }

  /** Every record of `kind`, in no particular order. */
  all<K extends Kind>(kind: K): StoredRecords[K][] {
    return [...this.#byId[kind].values()] as StoredRecords[K][]
  }

  /** Stores `next` as the current version of its record: over the written one, or beside the loaded one. */
  async #replace(kind: Kind, next: AnyRecord): Promise<AnyRecord> {
    const current = this.#byId[kind].get(next.id)!
    const stored = await this.#collections.write(kind, next, current)
    this.#forget(kind, current)
    this.#file(kind, stored)
    return stored
  }

  /** Forgets an inserted record: its indexes, and what is kept beside it. */
  #drop(kind: Kind, id: string): void {
    this.#forget(kind, this.#byId[kind].get(id)!)
    this.#byId[kind].delete(id)
    this.#messageTimes.delete(id)
    this.#endings.delete(id)
  }

  /** Takes a record's current version out of the indexes that depend on its fields. */
  #forget(kind: Kind, record: AnyRecord): void {
    this.#revision = ++lastRevision
    this.#lists.remove(kind, record)
    if (kind === 'contacts') this.#contactsByPhone.delete(phoneKey(record as StoredContact))
  }

  /** Puts a record's new version in every index. */
  #file(kind: Kind, record: AnyRecord): void {
    this.#remember(kind, record)
    this.#lists.add(kind, record)
  }

  /** A call's message times and ending are kept beside it, not in its collection. */
  #setAside(kind: Kind, record: WorldRecords[Kind][number]): AnyRecord {
    if (kind !== 'calls') return record
    const { message_times, ending, ...call } = record as CallWithConversation
    this.#messageTimes.set(call.id, message_times)
    if (ending) {
      this.#endings.set(call.id, ending)
      this.#pendingEndings.add(call.id)
    }
    return call
  }

  #remember(kind: Kind, record: AnyRecord): void {
    this.#revision = ++lastRevision
    this.#byId[kind].set(record.id, record)
    if (kind === 'contacts') this.#contactsByPhone.set(phoneKey(record as StoredContact), record.id)
  }
}

/** Whether `times` holds one epoch-ms time for each line of `transcript`. */
function hasTimePerLine(transcript: string, times: unknown): boolean {
  return Array.isArray(times) && times.length === linesOf(transcript) && times.every(Number.isSafeInteger)
}

/** One step of a transaction, as it must be undone: an insert goes; a change gets its earlier version back. */
type Undo =
  | { insert: true; kind: Kind; id: string }
  | { insert: false; kind: Kind; previous: AnyRecord; firstChange: boolean }

function recordKey(kind: Kind, id: string): string {
  return `${kind} ${id}`
}

function phoneKey(contact: StoredContact): string {
  return `${contact.organization_id} ${contact.phone}`
}
