import { Database } from '../data/Database.js'
import type { ClockState, CreateContactRequest, Health, JournalEntry, KeyUsage } from '../schemas/index.js'
import type { LogEntry } from '../schemas/snapshot.js'
import { byKind, type StoredAppointment, type StoredContact, type StoredLead } from '../schemas/stored.js'
import type { OrganizationFixture } from '../seed/fixtures.js'
import { hash32 } from '../seed/random.js'
import { recordsHash } from './checkedRecords.js'
import { Clock } from './Clock.js'
import { Endings } from './Endings.js'
import type { AddAppointmentInput, AddCallInput, AddedCall, AddLeadInput } from './Factories.js'
import { Factories } from './Factories.js'
import { FaultRules, MemoryRuleBook } from './FaultRules.js'
import { Faults, type NextFaults } from './Faults.js'
import { Journal, type JournalFilter, type JournalPage } from './Journal.js'
import { JournalBudget } from './JournalBudget.js'
import { KeyRing, type ApiKey } from './KeyRing.js'
import { LiveMode } from './LiveMode.js'
import { resolveOptions, type ResolvedOptions, type SandboxOptions, seedOfOptions } from './options.js'
import type { RateLimiter } from './RateLimiter.js'
import type { ScenarioName } from './scenarios.js'
import { Settings } from './Settings.js'
import { Listeners } from './Listeners.js'
import { startingWorld } from './startingWorld.js'
import { type Endpoint as UsageEndpoint, Usage } from './Usage.js'
import { type SandboxChanges, WorldLog } from './WorldLog.js'
import type { StoreLog } from './StoreLog.js'
import { type Records, type Write, WriteQueue } from './WriteQueue.js'

export type { AddCallInput, AddedCall } from './Factories.js'
export type { ApiKey } from './KeyRing.js'
export type { SandboxChanges } from './WorldLog.js'

/**
 * One world: its seed, clock, records, request journal, usage, settings and fault rules, and all that changes them.
 * It knows nothing of HTTP: the handlers (`createHandlers`) answer requests over it, in Node, the standalone server
 * and the browser alike.
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
  /** The fault rules tests set (`POST /_sandbox/faults`): API requests they make fail, slow or drop. */
  readonly faults: FaultRules
  /** Its latency, error rate and rate limit, changed at run time from the next request on (`/_sandbox/settings`). */
  readonly settings: Settings
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
  /** Where the writes are kept, and what comes back from there. */
  readonly #log: WorldLog

  /**
   * @param world.cursorSecret What cursors are checksummed with, instead of the seed's: cursors of one world are then
   * `invalid_cursor` in another seeded the same (a session of its own).
   * @param world.journal The journal to keep requests in, and `world.usage` the usage report: a session's, which
   * outlive the world when it is put away; by default new ones. `world.settings` likewise: the session's settings.
   */
  constructor(
    options: SandboxOptions = {},
    world: { cursorSecret?: string; journal?: Journal; usage?: Usage; settings?: Settings } = {},
  ) {
    this.#input = options
    this.#options = resolveOptions(options)
    const { seed, now, fixedClock, organizations, journalSize, journalBytes, records } = this.#options
    const notify = () => this.#listeners.notify()
    // A move outside a write (the clock set from a test or the control plane) is kept as a write of its own; the
    // clock's first setting, as it is made, comes before the log is.
    this.clock = new Clock(fixedClock ? now : undefined, () => this.#log?.clockMoved() || notify())
    this.cursorSecret = world.cursorSecret ?? `call-sandbox cursor ${seed}`
    this.journal = world.journal ?? new Journal(journalSize, new JournalBudget(journalBytes))
    this.usage = world.usage ?? new Usage()
    this.#keys = new KeyRing(organizations)
    this.settings = world.settings ?? new Settings()
    this.settings.startFrom(this.#options)
    this.#faults = new Faults(seed, this.settings)
    this.faults = new FaultRules(new MemoryRuleBook(), this)
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
    this.#log = new WorldLog({
      writes: this.#writes,
      clock: this.clock,
      journal: this.journal,
      usage: this.usage,
      startOver: (write, scenario) => this.#startOver(write, this.#optionsOf(scenario)),
      ownScenario: options.scenario ?? 'default',
      clockBase: () => (this.#options.fixedClock ? this.#options.now : Date.now()),
      seed: () => seedOfOptions(this.#options),
    })
    this.#endings = new Endings(this.#writes, this.clock)
    this.#factories = new Factories(this.#writes, () => this.#keys, this.clock)
    this.#live = new LiveMode(() => this.#options, {
      queue: this.#writes,
      clock: this.clock,
      keys: () => this.#keys,
      endings: this.#endings,
      factories: this.#factories,
      holdsLease: (ttlMs) => this.#log.holdsLease(ttlMs),
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
   * The faults of the next API request, drawn from the seed under the settings in effect: its latency and, at the
   * error rate, a 500 or 503. The same requests in the same order meet the same faults after every reset.
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
   * Back to the seeded world and clock, with empty journal, usage report, rate limits and fault rules, the fault
   * stream from its start; run-time settings stay (`settings.restore()` undoes them). Undoes every write since the
   * seed (costs what was written, not the world's size), replaying no draws: ids made after it repeat the last's.
   *
   * With a `scenario` other than the current one, the world is seeded anew from that scenario (the options given at
   * creation, and the settings changed since, still win over it).
   *
   * @example
   * beforeEach(() => sandbox.reset())
   * await sandbox.reset({ scenario: 'empty' })
   */
  async reset({ scenario }: { scenario?: ScenarioName } = {}): Promise<void> {
    await this.ready
    // The scenario it stands in is read in the write's turn: another server may swap it first.
    await this.#writes.write((write) => this.#startOver(write, this.#optionsOf(scenario)), {
      counted: false,
      kept: () => ({ reset: seedOfOptions(this.#optionsOf(scenario) ?? this.#options) }),
    })
    await this.#log.clearRequests()
    // A store servers share removes the rules with the reset, at its place in the log.
    if (!this.#log.shared) await this.faults.reset()
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
      this.settings.startFrom(options)
    } else {
      await db.rollback()
    }
    setCount(0)
    this.clock.reset()
    this.journal.clear()
    this.usage.clear()
    this.#faults = new Faults(this.#options.seed, this.settings)
    this.#live.restart()
  }

  /**
   * Ends the live calls whose end the clock has reached (or `at`, epoch ms), and adds the leads and appointments whose
   * time has come. The handlers do it before each answer; call it after moving the clock when you read `db` directly.
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
   * One arrival of live mode: a caller rings and the call is in progress (or being forwarded). A fixed clock moves on
   * by the live interval first.
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
    const store = this.#log.health()
    return {
      status: store.state === 'ok' ? 'ok' : 'degraded',
      seed,
      scenario,
      clock: this.clockState(),
      records: byKind((kind) => db.count(kind)),
      journal: { entries: this.journal.size, capacity: this.journal.capacity },
      live: { interval_ms: live ?? null },
      settings: this.settings.state(),
      store,
    }
  }

  /** Says a store will come (`keepWritesIn`): the world's timed work (live mode's calls) waits for it. */
  waitForStore(): void {
    this.#log.waitForStore()
  }

  /**
   * From now on every write, reset and clock move goes to `store` before it counts (see `WorldLog.keepIn`). The
   * server calls it once the world is put back from the same store (`replay`).
   */
  keepWritesIn(store: StoreLog): void {
    this.#log.keepIn(store)
    if (store.shared) this.faults.keepIn(store.faultRules)
    if (store.shared) this.settings.keepIn(store.settings)
  }

  /**
   * Sets the clock to an instant, or moves it by a function of the instant it shows, as one write: resolves with the
   * instant once its store has the move; one the store refuses leaves the clock as it was and throws its error.
   *
   * @example
   * await sandbox.moveClock(Date.parse('2026-12-24T08:00:00Z'))
   * await sandbox.moveClock((now) => now + 15 * 60_000)
   */
  moveClock(target: number | ((now: number) => number)): Promise<number> {
    return this.#log.moveClock(typeof target === 'number' ? () => target : target)
  }

  /**
   * Puts a world's log back, in order, into this sandbox seeded as the log's world was (see `seedOptionsOf`): its
   * writes, resets and clock moves. Nothing of it goes to the store again.
   *
   * @example
   * await sandbox.replay(kept.entries)
   */
  async replay(entries: readonly LogEntry[]): Promise<void> {
    await this.ready
    await this.#log.replay(entries)
  }

  /**
   * With a store several servers share: puts back what other servers wrote to this world since it last read its log
   * (see `WorldLog.catchUp`); the API and the control plane call it before every answer.
   */
  catchUp(): Promise<void> {
    return this.#log.catchUp()
  }

  /** Keeps one API request in the journal and (a request with a valid key) the usage report; with a fleet's store, there too. */
  recordRequest(entry: JournalEntry, usage?: Parameters<Usage['record']>): void {
    this.#log.recordRequest(entry, usage)
  }

  /** The journal, newest first: at most `limit` that `filter` lets through, past the newest `offset`; and their count. */
  journalEntries(limit = this.journal.capacity, filter: JournalFilter = {}, offset = 0): Promise<JournalPage> {
    return this.#log.journalEntries(limit, filter, offset)
  }

  /** The usage report per key (see `Usage.report`): this process's, or the fleet's from its store. */
  usageReport(endpoints: readonly UsageEndpoint[]): Promise<KeyUsage[]> {
    return this.#log.usageReport(endpoints)
  }

  /** Resolves once every write so far is done and, with a store, kept. */
  async idle(): Promise<void> {
    await this.#writes.idle()
  }

  /** How far the clock was set or moved: from the seed instant (a fixed clock) or the real time (a running one). */
  clockOffset(): number {
    return this.#log.clockOffset()
  }

  /** Sets the clock `ms` from its base (see `clockOffset`): where a snapshot or a log entry left it. */
  setClockOffset(ms: number): void {
    this.#log.setClockOffset(ms)
  }

  /**
   * Calls `listener` after every write, every reset and every move of the clock (the standalone server saves its data
   * file there). Returns a function that removes it.
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
    return this.#log.changes()
  }

  /**
   * Replays `changes()` of an earlier sandbox with the same seed, `now` and organizations onto this one, before
   * anything else is written to it. Writes after it go on as they would have in the earlier one; changes that do not
   * fit leave this sandbox as it was.
   *
   * @example
   * await fresh.restore(earlier.changes())
   */
  restore(changes: SandboxChanges): Promise<void> {
    return this.#log.restore(changes)
  }

  /**
   * Creates a contact as `POST /v1/contacts` does, with its errors (422 `validation_failed`, 409 `contact_exists`).
   *
   * @example
   * await sandbox.addContact({ phone: '+14155550123', name: 'Dana Whitfield' })
   */
  addContact(input: CreateContactRequest & { organization_id?: string }): Promise<StoredContact> {
    return this.#factories.addContact(input)
  }

  /**
   * An inbound call, told like the seeded ones: the caller's contact is made or updated, and a lead or an appointment
   * follows when the reason brings one.
   *
   * @example
   * const { call, lead } = await sandbox.addCall({ reason: 'implant_quote' })
   */
  addCall(input: AddCallInput = {}): Promise<AddedCall> {
    return this.#factories.addCall(input)
  }

  /**
   * A completed call the assistant handled, whose reason brings a lead, and that lead with `lead` overrides applied.
   *
   * @example
   * const { lead } = await sandbox.addLead({ lead: { status: 'qualified', urgency: 'high' } })
   */
  addLead({ lead, ...call }: AddLeadInput = {}): Promise<AddedCall & { lead: StoredLead }> {
    return this.#factories.addLead(call, lead)
  }

  /**
   * A completed call the assistant handled, whose reason books an appointment, and that appointment with overrides.
   *
   * @example
   * const { appointment } = await sandbox.addAppointment({ appointment: { status: 'cancelled' } })
   */
  addAppointment({
    appointment,
    ...call
  }: AddAppointmentInput = {}): Promise<AddedCall & { appointment: StoredAppointment }> {
    return this.#factories.addAppointment(call, appointment)
  }
}
