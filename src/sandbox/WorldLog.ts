import type { JournalEntry, KeyUsage, StoreHealth } from '../schemas/index.js'
import type { LogEntry, SeedIdentity } from '../schemas/snapshot.js'
import type { DatabaseChanges } from '../schemas/stored.js'
import type { Clock } from './Clock.js'
import { filterEntries, type Journal, type JournalFilter, type JournalPage } from './Journal.js'
import type { ScenarioName } from './scenarios.js'
import { countersOf, type Endpoint as UsageEndpoint, Usage } from './Usage.js'
import type { StoreLog } from './StoreLog.js'
import type { Kept, Write, WriteQueue } from './WriteQueue.js'

/** What a sandbox's writes changed since its seed (see `changes()`), and how many writes there were. */
export interface SandboxChanges extends DatabaseChanges {
  writes: number
}

/** What a world's log needs of its world. */
export interface LoggedWorld {
  readonly writes: WriteQueue
  readonly clock: Clock
  readonly journal: Journal
  readonly usage: Usage
  /** Inside a write: back to the seed of `scenario` (undefined: the world's current one). */
  startOver(write: Write, scenario: ScenarioName | undefined): Promise<void>
  /** The scenario the world was made with: where a log with no reset of its own starts. */
  readonly ownScenario: ScenarioName
  /** What the clock's offset counts from: the seed instant (a fixed clock) or the real time (a running one). */
  clockBase(): number
  /** The seed the world stands on now (its own, or a reset's). */
  seed(): SeedIdentity
}

/**
 * A world's log: where its writes, resets and clock moves are kept (its
 * part of a store, once it has one), how a log is put back into it, and,
 * with a store several servers share, how it catches up with what the
 * others wrote and where its request journal and usage report are kept.
 * The world itself does not know which store it has.
 */
export class WorldLog {
  readonly #world: LoggedWorld
  #store: StoreLog | undefined
  /** A store is on its way (`waitForStore`): until it comes, live mode rings nothing of its own. */
  #storeComing = false

  constructor(world: LoggedWorld) {
    this.#world = world
  }

  /**
   * The clock moved outside a write (set from a test or the control plane): true when the move is kept as a write of
   * its own, which tells the world's listeners itself.
   */
  clockMoved(): boolean {
    const { writes } = this.#world
    if (!this.#store || writes.running) return false
    writes.write(async () => undefined, { counted: false, kept: () => ({ clock: true }) }).catch(() => undefined)
    return true
  }

  /** Whether other servers write to the world's log too. */
  get shared(): boolean {
    return this.#store?.shared ?? false
  }

  /** Whether this server does the world's timed work for the next `ttlMs` (see `SharedLog.holdsLease`). */
  async holdsLease(ttlMs: number): Promise<boolean> {
    if (!this.#store) return !this.#storeComing
    return this.#store.shared ? this.#store.holdsLease(ttlMs) : true
  }

  waitForStore(): void {
    this.#storeComing = true
  }

  /**
   * From now on every write, reset and clock move goes to `store` before it counts: one the store refuses is undone
   * and throws its `StorageUnavailableError`. A store several servers share takes the world's snapshot between two
   * writes, in the world's turn, to compact its log.
   */
  keepIn(store: StoreLog): void {
    this.#store = store
    const { writes } = this.#world
    writes.keepIn(
      (kept) => store.append(this.#entryOf(kept)),
      () => this.catchUp(),
    )
    if (!store.shared) return
    store.compactWith((use) =>
      writes.write(
        async () => use({ ...this.#world.seed(), clock_offset_ms: this.clockOffset(), changes: this.changes() }),
        { counted: false, kept: 'nothing', changed: () => false },
      ),
    )
  }

  /**
   * Moves the clock as a write of its own: `move` takes the instant the clock shows and gives the one to move it to.
   * Resolves with that instant once the store has the move; one the store refuses leaves the clock as it was and
   * throws its error.
   */
  async moveClock(move: (now: number) => number): Promise<number> {
    const { clock, writes } = this.#world
    // Worked out in the write's turn, from the clock as the log left it: when another server moved it first, the
    // append fails, the world catches up and `move` runs again (`WriteQueue.write`), so both moves count. The log
    // keeps where the clock went, which is where it stands after both, in the order the log has them.
    let target: number | undefined
    let offset: number | undefined
    await writes.write(
      async () => {
        // As the store keeps it, from the clock's base: a running clock does not fall behind the other servers' by the
        // time the store took.
        if (offset !== undefined) return this.setClockOffset(offset)
        // No store: nothing was worked out before the write.
        target = move(clock.now())
        clock.set(target)
      },
      {
        counted: false,
        // The clock's own setting tells the listeners, once (see `Sandbox`'s clock).
        changed: () => false,
        kept: () => {
          target = move(clock.now())
          offset = Math.round(target - this.#world.clockBase())
          return { clock: true, offset }
        },
      },
    )
    return target!
  }

  /** Puts a log's entries back, in order: none of them goes to the store again. */
  async replay(entries: readonly LogEntry[]): Promise<void> {
    if (entries.length === 0) return
    await this.#world.writes.write((write) => this.#putBack(write, entries), { counted: false, kept: 'nothing' })
  }

  /**
   * With a store several servers share: puts back what other servers wrote to the world since it last read its log,
   * so a write answered by one server is seen by the very next request to another. Throws the store's
   * `StorageUnavailableError` when it cannot read the log: never stale data.
   */
  async catchUp(): Promise<void> {
    const store = this.#store
    if (!store?.shared) return
    const read = await store.since()
    if (!read) return
    await this.#world.writes.write(
      async (write) => {
        // Another request of this server may have put these back while this one read them.
        const unread = store.unread(read)
        if (!unread) return
        const [first] = unread.entries
        if (unread.whole && (first === undefined || !('reset' in first))) {
          // The whole log, with no reset of its own first (the session was ended): back to the world's own seed.
          await this.#world.startOver(write, this.#world.ownScenario)
        }
        await this.#putBack(write, unread.entries)
        store.caughtUp(read)
      },
      { counted: false, kept: 'nothing' },
    )
  }

  /** What the writes since the seed changed, as it stands now: what a snapshot keeps. */
  changes(): SandboxChanges {
    const { writes } = this.#world
    return { writes: writes.count, ...writes.records.changes() }
  }

  /** How far the clock was set or moved from its base: what a log entry or a snapshot keeps of it. */
  clockOffset(): number {
    return Math.round(this.#world.clock.now() - this.#world.clockBase())
  }

  setClockOffset(ms: number): void {
    this.#world.clock.set(this.#world.clockBase() + ms)
  }

  /** The store's health; a world with no store keeps its writes in memory. */
  health(): StoreHealth {
    return this.#store?.health() ?? { kind: 'memory', state: 'ok', error: null }
  }

  /** After a reset: the server that resets forgets the fleet's journal and usage; others keep what came since. */
  async clearRequests(): Promise<void> {
    if (this.#store?.shared) await this.#store.requests.clear()
  }

  recordRequest(entry: JournalEntry, usage?: Parameters<Usage['record']>): void {
    const { journal } = this.#world
    journal.record(entry)
    if (usage) this.#world.usage.record(...usage)
    if (this.#store?.shared) this.#store.requests.record(entry, journal.capacity, usage && countersOf(...usage))
  }

  async journalEntries(limit: number, filter: JournalFilter, offset = 0): Promise<JournalPage> {
    const shared = this.#store?.shared ? this.#store.requests : undefined
    const { journal } = this.#world
    const { capacity } = journal
    // No filter: the newest `limit`, and the journal's size, without reading the rest (a fleet's is in Redis, and the
    // console asks twice a second).
    if (Object.values(filter).every((value) => value === undefined)) {
      const kept = Math.min(offset + limit, capacity)
      const { entries, size } = shared
        ? await shared.journal(kept)
        : { entries: journal.entries(kept), size: journal.size }
      return { entries: entries.slice(offset), count: Math.min(size, capacity) }
    }
    const matching = filterEntries(shared ? (await shared.journal(capacity)).entries : journal.entries(), filter)
    return { entries: matching.slice(offset, offset + limit), count: matching.length }
  }

  async usageReport(endpoints: readonly UsageEndpoint[]): Promise<KeyUsage[]> {
    const shared = this.#store?.shared ? this.#store.requests : undefined
    return (shared ? Usage.fromCounters(await shared.usage()) : this.#world.usage).report(endpoints)
  }

  /**
   * Writes `changes()` of an earlier world with the same seed, `now` and organizations onto this one, before anything
   * else is written to it; changes that do not fit leave it as it was.
   */
  async restore(changes: SandboxChanges): Promise<void> {
    await this.#world.writes.write(
      async ({ db, setCount }) => {
        if (db.changed) throw new Error('restore() takes a sandbox nothing was written to yet.')
        for (const { kind, record } of changes.inserted) await db.insert(kind, record)
        for (const { kind, record } of changes.changed) {
          if (!db.get(kind, record.id))
            throw new Error(`The ${kind} record ${record.id} to restore is not in this world.`)
          await db.update(kind, record.id, record)
        }
        setCount(changes.writes)
      },
      { counted: false },
    )
  }

  /** Inside a write: a log's entries put back, in order (none of them goes to the store again). */
  async #putBack(write: Write, entries: readonly LogEntry[]): Promise<void> {
    for (const entry of entries) {
      if ('reset' in entry) {
        await this.#world.startOver(write, entry.reset.scenario)
        continue
      }
      if ('write' in entry) {
        for (const { kind, record } of entry.changes.inserted) await write.db.insert(kind, record)
        for (const { kind, record } of entry.changes.changed) await write.db.update(kind, record.id, record)
        write.setCount(entry.write)
      }
      this.setClockOffset(entry.clock_offset_ms)
    }
  }

  #entryOf(kept: Kept): LogEntry {
    const clock_offset_ms = this.clockOffset()
    if ('reset' in kept) return kept
    if ('clock' in kept) return { clock_offset_ms: kept.offset ?? clock_offset_ms }
    return { ...kept, clock_offset_ms }
  }
}
