import { z } from 'zod'
import { CreateSessionRequest, ScenarioName } from './control.js'
import type { DatabaseChanges } from './stored.js'
import { KINDS } from './stored.js'

/*
 * A world is its seed plus its writes. These are the shapes a store keeps
 * of one: the seed it was made from (`SeedIdentity`), a snapshot of it (its
 * writes folded into the records they left), and the log of what happened
 * to it since, one entry per write, in order.
 */

/** Records as a write left them; each record is checked against its kind's schema when it is put back. */
const RecordChanges = z.array(z.object({ kind: z.enum(KINDS), record: z.looseObject({ id: z.string() }) }))

const ChangesShape = z.object({ inserted: RecordChanges, changed: RecordChanges })

/** The records a write or a run of writes inserted and changed: a `DatabaseChanges`, as a store keeps it. */
export const Changes = z.custom<DatabaseChanges>((value) => ChangesShape.safeParse(value).success, {
  error: 'must be { inserted, changed }, each a list of { kind, record }',
})

/**
 * The seed a world was made from, as a store checks it: a snapshot or a log fits only a world seeded the same.
 */
export const SeedIdentity = z.object({
  seed: z.int().nonnegative(),
  /** The seed instant, ISO. */
  seeded_at: z.iso.datetime(),
  clock: z.enum(['fixed', 'running']),
  scenario: ScenarioName.default('default'),
  /** A hash of the organizations with their sizes (and the records a recorded world starts from). */
  organizations: z.string(),
})
export type SeedIdentity = z.infer<typeof SeedIdentity>

/** A world as it stood: its seed, how far its clock was moved, and its writes folded into what they left. */
export const Snapshot = SeedIdentity.extend({
  /**
   * How far the clock was set or moved: from the seed instant (a fixed clock) or from the real time (a running
   * one).
   */
  clock_offset_ms: z.int().default(0),
  changes: z.intersection(Changes, z.object({ writes: z.int().nonnegative() })),
})
export type Snapshot = z.infer<typeof Snapshot>

/** What a session was created with beyond the server's options; null for one its first request made. */
export const SessionOptions = CreateSessionRequest.omit({ name: true }).nullable()
export type SessionOptions = z.infer<typeof SessionOptions>

/**
 * One entry of a world's log, in the order it happened. Every entry but a
 * session's end says where the clock stood after it.
 */
export const LogEntry = z.union([
  /** A write: the records it inserted and changed, and the writes since the seed after it. */
  z.strictObject({ write: z.int().nonnegative(), changes: Changes, clock_offset_ms: z.int() }),
  /** Back to the seed (of this world, its scenario maybe another): what was before no longer counts. */
  z.strictObject({ reset: SeedIdentity }),
  /** The clock set or moved, with nothing written. */
  z.strictObject({ clock_offset_ms: z.int() }),
])
export type LogEntry = z.infer<typeof LogEntry>
