import type { Database } from '../data/Database.js'
import type { CallEnding, StoredAppointment, StoredLead } from '../schemas/stored.js'
import { laterOf } from '../seed/iso.js'
import type { Clock } from './Clock.js'
import type { Records, WriteQueue } from './WriteQueue.js'

/**
 * Live calls ending as the clock reaches them. A live call is told with its
 * ending (see `CallEnding`); once the clock passes its end, the call takes
 * its final fields and full conversation, the caller's contact is updated,
 * and the lead or appointment it brings appears at its own `created_at`.
 *
 * @example
 * const endings = new Endings(queue, clock)
 * clock.advance(10 * 60_000)
 * await endings.settle()
 */
export class Endings {
  /**
   * Nothing is due before `until` while the records are at `revision`: every request settles first, and most come
   * between two endings, when there is nothing to look for.
   */
  #quiet = { revision: Number.NaN, until: Number.NEGATIVE_INFINITY }

  constructor(
    private readonly queue: WriteQueue,
    private readonly clock: Clock,
  ) {}

  /**
   * Applies what is due at `at` (epoch ms; default the clock's now), as a write that takes no number; nothing due, no
   * write.
   */
  async settle(at?: number): Promise<void> {
    const { records } = this.queue
    const now = at ?? this.clock.now()
    if (records.revision === this.#quiet.revision && now < this.#quiet.until) return
    const { due, next } = dueEndings(records, now)
    if (due.length === 0) {
      this.#quiet = { revision: records.revision, until: next }
      return
    }
    await this.queue.write(async ({ db }) => this.apply(db, at ?? this.clock.now()), {
      counted: false,
      changed: (applied) => applied > 0,
    })
  }

  /** Inside a write: applies what of the endings is due at `now`; returns how many records it wrote. */
  async apply(db: Database, now: number): Promise<number> {
    const { due } = dueEndings(db, now)
    for (const item of due) {
      if (item.kind !== 'calls') {
        await db.insert(item.kind, item.record as never)
        continue
      }
      const contact = db.get('contacts', db.get('calls', item.callId)!.contact_id)!
      await db.update('calls', item.callId, item.ending.call)
      await db.update('contacts', contact.id, {
        email: contact.email ?? item.ending.contact_email,
        updated_at: laterOf(contact.updated_at, item.ending.call.ended_at),
      })
    }
    return due.length
  }
}

/** One thing a live call's ending brings that is due: the call's end, or its lead or appointment. */
type DueEnding =
  | { kind: 'calls'; callId: string; ending: CallEnding }
  | { kind: 'leads' | 'appointments'; record: StoredLead | StoredAppointment }

/**
 * The instant of a pending ending's `iso` time, parsed once: every request asks of each live call whether it has
 * ended, and an ending never changes.
 */
const instants = new WeakMap<object, number>()
function instantOf(holder: object, iso: string): number {
  let instant = instants.get(holder)
  if (instant === undefined) {
    instant = Date.parse(iso)
    instants.set(holder, instant)
  }
  return instant
}

/**
 * What of the pending endings is due at `now` (live calls to end, leads and appointments to add), and the first
 * instant after `now` at which one more will be, if the records stay as they are.
 */
function dueEndings(records: Records, now: number): { due: DueEnding[]; next: number } {
  const due: DueEnding[] = []
  let next = Number.POSITIVE_INFINITY
  for (const [callId, ending] of records.pendingEndings()) {
    const live = records.get('calls', callId)!.ended_at === null
    const ends = instantOf(ending.call, ending.call.ended_at)
    if (live && ends > now) {
      // Nothing of it comes before its end: its lead or appointment waits for the call to have ended.
      next = Math.min(next, ends)
      continue
    }
    if (live) due.push({ kind: 'calls', callId, ending })
    for (const [kind, record] of [
      ['leads', ending.lead],
      ['appointments', ending.appointment],
    ] as const) {
      if (!record || records.get(kind, record.id)) continue
      const at = instantOf(record, record.created_at)
      if (at <= now) due.push({ kind, record })
      else next = Math.min(next, at)
    }
  }
  return { due, next }
}
