import { Database } from '../data/Database.js'
import type { ClockState, CreateContactRequest, Health, JournalEntry, KeyUsage } from '../schemas/index.js'
import type { LogEntry } from '../schemas/snapshot.js'
import {
  byKind,
  type DatabaseChanges,
  type StoredAppointment,
  type StoredContact,
  type StoredLead,
} from '../schemas/stored.js'
import type { OrganizationFixture } from '../world/fixtures.js'
import { hash32 } from '../world/random.js'
import { recordsHash } from './checkedRecords.js'
import { Clock } from './Clock.js'
import { Endings } from './Endings.js'
import {
  Factories,
  type AddCallInput,
  type AddedCall,
  type AppointmentOverrides,
  type LeadOverrides,
} from './Factories.js'
import { Faults, type NextFaults } from './Faults.js'
import { filterEntries, Journal, type JournalFilter } from './Journal.js'
import { JournalBudget } from './JournalBudget.js'
import { KeyRing, type ApiKey } from './KeyRing.js'
import { LiveMode } from './LiveMode.js'
import { resolveOptions, type ResolvedOptions, type SandboxOptions, worldOfOptions } from './options.js'
import type { RateLimiter } from './RateLimiter.js'
import type { ScenarioName } from './scenarios.js'
import { Listeners } from './Listeners.js'
import { startingWorld } from './startingWorld.js'
import { countersOf, type Endpoint as UsageEndpoint, Usage } from './Usage.js'
import type { WorldStore } from './WorldStore.js'
import { type Kept, type Records, type Write, WriteQueue } from './WriteQueue.js'

export type { AddCallInput, AddedCall } from './Factories.js'
export type { ApiKey } from './KeyRing.js'

/** What a sandbox's writes changed since its seed (see `changes()`), and how many writes there were. */
export interface SandboxChanges extends DatabaseChanges {
  writes: number
}

/**
 * One world: its seed, clock, records, request journal, usage report and
 * limits, and everything that changes them. It knows nothing of HTTP: the
 * handlers (`createHandlers`) answer requests over it, in Node, the
 * standalone server and the browser alike.
 *
 * @example
 * const sandbox = new Sandbox({ seed: 1, now: '2026-11-20T12:00:00Z' })
 * await sandbox.ready
 * await sandbox.addCall({ status: 'in-progress' })
 * await sandbox.reset()
 */
export class Sandbox {
  readonly clock: Clock
  /** Resolves once the seeded world is loaded; writes and the handlers wait for it too. */
  readonly ready: Promise<void>
  /** Secret that cursors are checksummed with; derived from the seed, so cursors survive a restart. */
  readonly cursorSecret: string
  /** The newest API requests and their answers (`GET /_sandbox/requests`). */
  readonly journal: Journal
  /** What each key called since the last reset (`GET /_sandbox/usage`). */
  readonly usage: Usage
  readonly #input: SandboxOptions
  #options: ResolvedOptions
  #keys: KeyRing
  /** The faults of the requests since the last reset. */
  #faults: Faults
  readonly #writes: WriteQueue
  readonly #endings: Endings
  readonly #factories: Factories
  readonly #live: LiveMode
  readonly #listeners = new Listeners('an onChange listener')
  /** Where the writes are kept, once `keepWritesIn` was called. */
  #store: WorldStore | undefined
  /** A store is on its way (`waitForStore`): until it comes, live mode rings nothing of its own. */
  #storeComing = false
  /** The store's taking of the last clock move made outside a write. */
  #clockKept: Promise<void> = Promise.resolve()
  #clockUnkept = false

  /**
   * @param world.cursorSecret What cursors are checksummed with, instead of
   * the seed's: cursors of one world are then `invalid_cursor` in another
   * seeded the same (a session of its own).
   * @param world.journal The journal to keep requests in, and `world.usage` the usage report: a session's, which
   * outlive the world when it is put away; by default new ones.
   */
  constructor(options: SandboxOptions = {}, world: { cursorSecret?: string; journal?: Journal; usage?: Usage } = {}) {
    this.#input = options
    this.#options = resolveOptions(options)
    const { seed, now, fixedClock, organizations, journalSize, journalBytes, records } = this.#options
    const notify = () => this.#listeners.notify()
    const clockMoved = () => {
      // A move outside a write (the clock set from a test or the control plane) is kept as a write of its own.
      if (this.#store && !this.#writes.running && !this.#clockUnkept) {
        const kept = this.#writes.write(async () => undefined, { counted: false, kept: () => ({ clock: true }) })
        this.#clockKept = kept
        kept.catch(() => undefined)
      } else notify()
    }
    this.clock = new Clock(fixedClock ? now : undefined, clockMoved)
    this.cursorSecret = world.cursorSecret ?? `call-sandbox cursor ${seed}`
    this.journal = world.journal ?? new Journal(journalSize, new JournalBudget(journalBytes))
    this.usage = world.usage ?? new Usage()
    this.#keys = new KeyRing(organizations)
    this.#faults = new Faults(this.#options)
    const db = new Database()
    // Seeded and loaded in slices, the event loop running between them: a big world does not stop other requests.
    this.ready = startingWorld(records, seed, now, organizations).then((world) => db.load(world))
    // A world started from records draws its writes from streams of its own: see recordsHash.
    this.#writes = new WriteQueue(
      records === undefined ? seed : hash32(`${seed} ${recordsHash(records)}`),
      db,
      this.ready,
      notify,
    )
    this.#endings = new Endings(this.#writes, this.clock)
    this.#factories = new Factories(this.#writes, () => this.#keys, this.clock)
    this.#live = new LiveMode(() => this.#options, {
      queue: this.#writes,
      clock: this.clock,
      keys: () => this.#keys,
      endings: this.#endings,
      factories: this.#factories,
      leads: async (ttlMs) => (this.#store ? ((await this.#store.leads?.(ttlMs)) ?? true) : !this.#storeComing),
    })
    this.#live.start()
  }

  /** The options in effect, defaults filled in; a scenario swap changes them. */
  get options(): ResolvedOptions {
    return this.#options
  }

  /** The records, to read: every change goes through the sandbox's methods. */
  get db(): Records {
    return this.#writes.records
  }

  /** The rate limiter, when the sandbox has a rate limit. */
  get rateLimiter(): RateLimiter | undefined {
    return this.#faults.rateLimiter
  }

  /**
   * The faults of the next API request, drawn from the seed: its latency
   * and, at the `errorRate`, a 500 or 503. The same requests in the same
   * order meet the same faults after every reset.
   *
   * @example
   * const { latencyMs, failure } = sandbox.nextFaults() // { latencyMs: 0 } without latency or errorRate
   */
  nextFaults(): NextFaults {
    return this.#faults.next()
  }

  get organizations(): readonly OrganizationFixture[] {
    return this.#keys.organizations
  }

  /** Every key of every organization, in fixture order. */
  get apiKeys(): ApiKey[] {
    return this.#keys.all
  }

  /** The key with its scopes and organization, or `undefined` for a key no organization has. */
  apiKey(key: string): ApiKey | undefined {
    return this.#keys.key(key)
  }

  /** An organization by id; the first one when no id is given. */
  organization(organizationId?: string): OrganizationFixture {
    return this.#keys.organization(organizationId)
  }

  /**
   * Back to the seeded world and the starting clock, with an empty journal,
   * usage report and rate limits. Undoes every write since the seed (costs
   * what was written, not the world's size) and replays no random draws, so
   * ids made after a reset repeat those made after the last.
   *
   * With a `scenario` other than the current one, the world is seeded anew
   * from that scenario (the options given at creation still win over it).
   *
   * @example
   * beforeEach(() => sandbox.reset())
   * await sandbox.reset({ scenario: 'empty' })
   */
  async reset({ scenario }: { scenario?: ScenarioName } = {}): Promise<void> {
    await this.ready
    const options = this.#optionsOf(scenario)
    await this.#writes.write((write) => this.#startOver(write, options), {
      counted: false,
      kept: () => ({ reset: worldOfOptions(options ?? this.#options) }),
    })
    // The server that resets forgets the fleet's journal and usage; others putting the reset back keep what came since.
    await this.#store?.requests?.clear()
  }

  /** The options a reset to `scenario` seeds from; undefined when it stays the same. */
  #optionsOf(scenario: ScenarioName | undefined): ResolvedOptions | undefined {
    if (scenario === undefined || scenario === this.#options.scenario) return undefined
    return resolveOptions({
      ...this.#input,
      scenario,
      now: this.#options.now,
      clock: this.#options.fixedClock ? 'fixed' : 'running',
    })
  }

  /** Inside a write: back to the seed (of `options`, a scenario swapped to, or of the world's own). */
  async #startOver({ db, replace, setCount }: Write, options: ResolvedOptions | undefined): Promise<void> {
    if (options) {
      const { seed, now, organizations, records } = options
      const seeded = new Database()
      await seeded.load(await startingWorld(records, seed, now, organizations))
      replace(seeded)
      this.#options = options
      this.#keys = new KeyRing(organizations)
    } else {
      await db.rollback()
    }
    setCount(0)
    this.clock.reset()
    this.journal.clear()
    this.usage.clear()
    this.#faults = new Faults(this.#options)
    this.#live.restart()
  }

  /**
   * Ends the live calls whose end the clock has reached (or `at`, epoch ms),
   * and adds the leads and appointments whose time has come. The handlers
   * do it before each answer; call it after moving the clock when you read
   * `db` directly.
   *
   * @example
   * sandbox.clock.advance(10 * 60_000)
   * await sandbox.settle()
   */
  async settle(at?: number): Promise<void> {
    await this.ready
    await this.#endings.settle(at)
  }

  /**
   * One arrival of live mode: a caller rings and the call is in progress (or
   * being forwarded). A fixed clock moves on by the live interval first.
   *
   * @example
   * const { call } = await sandbox.liveTick()
   */
  liveTick(): Promise<AddedCall> {
    return this.#live.tick()
  }

  /**
   * Stops live mode's arrivals; the server calls it when it closes.
   *
   * @example
   * afterAll(() => sandbox.stop())
   */
  stop(): void {
    this.#live.stop()
  }

  /**
   * The clock as `GET /_sandbox/clock` shows it.
   *
   * @example
   * sandbox.clockState() // { now: '2026-11-20T12:00:00.000Z', mode: 'fixed' }
   */
  clockState(): ClockState {
    return { now: this.clock.iso(), mode: this.clock.fixed ? 'fixed' : 'running' }
  }

  /**
   * What `GET /_sandbox/health` shows: the world, the clock, the journal.
   *
   * @example
   * sandbox.health().records.calls // 340 in the default world
   */
  health(): Health {
    const { seed, scenario, live } = this.#options
    const { db } = this
    const store = this.#store?.health() ?? { kind: 'memory', state: 'ok', error: null }
    return {
      status: store.state === 'ok' ? 'ok' : 'degraded',
      seed,
      scenario,
      clock: this.clockState(),
      records: byKind((kind) => db.count(kind)),
      journal: { entries: this.journal.size, capacity: this.journal.capacity },
      live: { interval_ms: live ?? null },
      store,
    }
  }

  /**
   * Says a store will come (`keepWritesIn`): the world's timed work (live mode's calls) waits for it.
   *
   * @note A server of a fleet seeds its world before it reaches its store; a live call rung meanwhile would be its
   * own, and another server's call of the same arrival a fork of it.
   */
  waitForStore(): void {
    this.#storeComing = true
  }

  /**
   * From now on every write, reset and clock move goes to `store` before it
   * counts: one the store refuses is undone and throws its
   * `StorageUnavailableError`. The server calls it once the world is put
   * back from the same store (`replay`). A store that compacts the log
   * takes the world's snapshot between two writes, in the world's turn.
   */
  keepWritesIn(store: WorldStore): void {
    this.#store = store
    this.#writes.keepIn(
      (kept) => store.append(this.#entryOf(kept)),
      () => this.catchUp(),
    )
    store.compactWith?.((use) =>
      this.#writes.write(
        async () =>
          use({ ...worldOfOptions(this.#options), clock_offset_ms: this.clockOffset(), changes: this.changes() }),
        { counted: false, kept: 'nothing', changed: () => false },
      ),
    )
  }

  /**
   * Sets the clock, once its store has the move: when the store refuses it,
   * the clock is put back and the store's error thrown.
   *
   * @example
   * await sandbox.moveClock(Date.parse('2026-12-24T08:00:00Z'))
   */
  async moveClock(target: number): Promise<void> {
    const before = this.clock.now()
    this.clock.set(target)
    try {
      await this.#clockKept
    } catch (error) {
      // Put back as it was, which the store need not hear of.
      this.#clockUnkept = true
      this.clock.set(before)
      this.#clockUnkept = false
      throw error
    }
  }

  /**
   * Puts a world's log back, in order, into this sandbox seeded as the log's
   * world was (see \`seedOptionsOf\`): its writes, resets and clock moves.
   * Nothing of it goes to the store again.
   *
   * @example
   * await sandbox.replay(kept.entries)
   */
  async replay(entries: readonly LogEntry[]): Promise<void> {
    await this.ready
    if (entries.length === 0) return
    await this.#writes.write((write) => this.#putBack(write, entries), { counted: false, kept: 'nothing' })
  }

  /**
   * With a store several servers share: puts back what other servers wrote
   * to this world since it last read its log. The API and the control plane
   * call it before every answer, so a write answered by one server is seen
   * by the very next request to another. Throws the store's
   * `StorageUnavailableError` when it cannot read the log: never stale data.
   *
   * @example
   * await world.catchUp()
   */
  async catchUp(): Promise<void> {
    const store = this.#store
    if (!store?.since) return
    const read = await store.since()
    if (!read) return
    await this.#writes.write(
      async (write) => {
        // Another request of this server may have put these back while this one read them.
        const unread = store.unread!(read)
        if (!unread) return
        const [first] = unread.entries
        if (unread.whole && (first === undefined || !('reset' in first))) {
          // The whole log, with no reset of its own first (the session was ended): back to the world's own seed.
          await this.#startOver(write, this.#optionsOf(this.#input.scenario ?? 'default'))
        }
        await this.#putBack(write, unread.entries)
        store.caughtUp!(read)
      },
      { counted: false, kept: 'nothing' },
    )
  }

  /** Inside a write: a log's entries put back, in order (none of them goes to the store again). */
  async #putBack(write: Write, entries: readonly LogEntry[]): Promise<void> {
    for (const entry of entries) {
      if ('reset' in entry) {
        await this.#startOver(write, this.#optionsOf(entry.reset.scenario))
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

  /**
   * Keeps one API request: in the request journal, and (a request with a valid key) in the usage report; with a store
   * several servers share, there too.
   */
  recordRequest(entry: JournalEntry, usage?: Parameters<Usage['record']>): void {
    this.journal.record(entry)
    if (usage) this.usage.record(...usage)
    this.#store?.requests?.record(entry, this.journal.capacity, usage && countersOf(...usage))
  }

  /**
   * The request journal, newest first (at most `limit`, of those `filter` lets through), and how many `filter` lets
   * through: this process's, or the fleet's from its store.
   */
  async journalEntries(
    limit = this.journal.capacity,
    filter: JournalFilter = {},
  ): Promise<{ entries: JournalEntry[]; count: number }> {
    const shared = this.#store?.requests
    const { capacity } = this.journal
    // No filter: the newest `limit`, and the journal's size, without reading the rest (a fleet's is in Redis, and the
    // console asks twice a second).
    if (Object.values(filter).every((value) => value === undefined)) {
      const kept = Math.min(limit, capacity)
      const { entries, size } = shared
        ? await shared.journal(kept)
        : { entries: this.journal.entries(kept), size: this.journal.size }
      return { entries, count: Math.min(size, capacity) }
    }
    const matching = filterEntries(shared ? (await shared.journal(capacity)).entries : this.journal.entries(), filter)
    return { entries: matching.slice(0, limit), count: matching.length }
  }

  /** The usage report per key (see `Usage.report`): this process's, or the fleet's from its store. */
  async usageReport(endpoints: readonly UsageEndpoint[]): Promise<KeyUsage[]> {
    const shared = this.#store?.requests
    return (shared ? Usage.fromCounters(await shared.usage()) : this.usage).report(endpoints)
  }

  /** Resolves once every write so far is done and, with a store, kept. */
  async idle(): Promise<void> {
    await this.#writes.idle()
  }

  /**
   * How far the clock was set or moved: from the seed instant (a fixed clock) or from the real time (a running
   * one).
   */
  clockOffset(): number {
    return Math.round(this.clock.now() - this.#clockBase())
  }

  /** Sets the clock `ms` from its base (see `clockOffset`): where a snapshot or a log entry left it. */
  setClockOffset(ms: number): void {
    this.clock.set(this.#clockBase() + ms)
  }

  #clockBase(): number {
    return this.#options.fixedClock ? this.#options.now : Date.now()
  }

  #entryOf(kept: Kept): LogEntry {
    if ('reset' in kept) return kept
    if ('clock' in kept) return { clock_offset_ms: this.clockOffset() }
    return { ...kept, clock_offset_ms: this.clockOffset() }
  }

  /**
   * Calls `listener` after every write, every reset and every move of the
   * clock (the standalone server saves its data file there). Returns a function that removes it.
   *
   * @example
   * const stop = sandbox.onChange(() => console.log(sandbox.changes().inserted.length))
   */
  onChange(listener: () => void): () => void {
    return this.#listeners.add(listener)
  }

  /** How many writes there were since the seed. */
  get writeCount(): number {
    return this.#writes.count
  }

  /** What the writes since the seed changed, as it stands now: what a data file keeps. */
  changes(): SandboxChanges {
    return { writes: this.#writes.count, ...this.db.changes() }
  }

  /**
   * Replays `changes()` of an earlier sandbox with the same seed, `now` and
   * organizations onto this one, before anything else is written to it.
   * Writes after it go on as they would have in the earlier one; changes
   * that do not fit leave this sandbox as it was.
   *
   * @example
   * await fresh.restore(earlier.changes())
   */
  async restore(changes: SandboxChanges): Promise<void> {
    await this.#writes.write(
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

  /**
   * Creates a contact as `POST /v1/contacts` does: the same checks and
   * errors (`ApiError` 422 `validation_failed`, 409 `contact_exists`).
   *
   * @example
   * await sandbox.addContact({ phone: '+14155550123', name: 'Dana Whitfield' })
   */
  addContact(input: CreateContactRequest & { organization_id?: string }): Promise<StoredContact> {
    return this.#factories.addContact(input)
  }

  /**
   * An inbound call, told like the seeded ones: the caller's contact is made
   * or updated, and a lead or an appointment follows when the reason brings one.
   *
   * @example
   * const { call, lead } = await sandbox.addCall({ reason: 'implant_quote' })
   */
  addCall(input: AddCallInput = {}): Promise<AddedCall> {
    return this.#factories.addCall(input)
  }

  /**
   * A completed call the assistant handled, whose reason brings a lead, and
   * that lead with `lead` overrides applied.
   *
   * @example
   * const { lead } = await sandbox.addLead({ lead: { status: 'qualified', urgency: 'high' } })
   */
  addLead({
    lead,
    ...call
  }: Omit<AddCallInput, 'status' | 'reason'> & { lead?: LeadOverrides } = {}): Promise<
    AddedCall & { lead: StoredLead }
  > {
    return this.#factories.addLead(call, lead)
  }

  /**
   * A completed call the assistant handled, whose reason books an
   * appointment, and that appointment with `appointment` overrides applied.
   *
   * @example
   * const { appointment } = await sandbox.addAppointment({ appointment: { status: 'cancelled' } })
   */
  addAppointment({
    appointment,
    ...call
  }: Omit<AddCallInput, 'status' | 'reason'> & { appointment?: AppointmentOverrides } = {}): Promise<
    AddedCall & { appointment: StoredAppointment }
  > {
    return this.#factories.addAppointment(call, appointment)
  }
}
