import type { Faker } from '@faker-js/faker'
import type { RequestHandler } from 'msw'
import { Database } from '../data/Database.js'
import type { CallEnding, DatabaseChanges, StoredAppointment, StoredCall, StoredContact, StoredLead } from '../data/records.js'
import { createHandlers } from '../http/createHandlers.js'
import { ApiError } from '../http/ApiError.js'
import { parseBody } from '../http/body.js'
import { CallStatus, CreateContactRequest, E164_PATTERN, LIVE_CALL_STATUSES, parseInstant, type Scope } from '../schemas/index.js'
import { businessTypes, type OrganizationFixture } from '../world/fixtures.js'
import { laterOf } from '../world/iso.js'
import { createFaker, uuid, weighted } from '../world/random.js'
import { seedWorld } from '../world/seedWorld.js'
import { tellCall, type CallStory, type Ending } from '../world/story.js'
import { Clock } from './Clock.js'
import { Journal } from './Journal.js'
import { resolveOptions, type ResolvedOptions, type SandboxOptions } from './options.js'
import { RateLimiter } from './RateLimiter.js'
import type { ScenarioName } from './scenarios.js'
import { Usage } from './Usage.js'

/** A key, with its scopes and the organization it belongs to. */
export interface ApiKey {
  key: string
  scopes: readonly Scope[]
  organization: OrganizationFixture
}

export interface AddCallInput {
  /** Default: the first organization. */
  organization_id?: string
  /** A contact's phone makes them the caller; another number is a new caller. */
  caller_phone?: string
  /** Default `completed`. */
  status?: CallStatus
  /** A reason id of the organization's business type (see `fixtures/business-types/`); default: picked by weight. */
  reason?: string
  /** When the call started (ISO); default ten minutes ago, or a minute ago for a live call. */
  started_at?: string
}

/** What `addCall` and its kin made: the call and what came of it. */
export interface AddedCall {
  call: StoredCall
  contact: StoredContact
  lead?: StoredLead
  appointment?: StoredAppointment
}

const MINUTE = 60_000

/** What a sandbox's writes changed since its seed (see `changes()`), and how many writes there were. */
export interface SandboxChanges extends DatabaseChanges {
  writes: number
}

/**
 * One sandbox: a seeded world of organizations, keys and records, the
 * clock, and the MSW handlers that answer the API over them. Node, the
 * standalone server and the browser all run this same object.
 *
 * @example
 * const sandbox = createSandbox({ seed: 1, now: '2026-11-20T12:00:00Z' })
 * await sandbox.ready
 * await sandbox.addCall({ status: 'in-progress' })
 * await sandbox.reset()
 */
export class Sandbox {
  readonly clock: Clock
  /** The MSW request handlers: give them to `setupServer`, `setupWorker` or the HTTP middleware. */
  readonly handlers: RequestHandler[]
  /** Resolves once the seeded world is loaded; the handlers wait for it too. */
  readonly ready: Promise<void>
  /** Secret that cursors are checksummed with; derived from the seed, so cursors survive a restart. */
  readonly cursorSecret: string
  /** The newest API requests and their answers (`GET /_sandbox/requests`). */
  readonly journal: Journal
  /** What each key called since the last reset (`GET /_sandbox/usage`). */
  readonly usage = new Usage()
  readonly #input: SandboxOptions
  #options: ResolvedOptions
  #db = new Database()
  /** What requests and live mode draw on and count against since the last reset. */
  #run: Run
  #liveTimer: ReturnType<typeof setInterval> | undefined
  readonly #keys: ReadonlyMap<string, ApiKey>
  /** Writes since the seed; each draws from a random stream of its own number. */
  #writeCount = 0
  #writes: Promise<unknown> = Promise.resolve()
  readonly #listeners = new Set<() => void>()

  constructor(options: SandboxOptions = {}) {
    this.#input = options
    this.#options = resolveOptions(options)
    const { seed, now, fixedClock, organizations, journalSize } = this.#options
    this.clock = new Clock(fixedClock ? now : undefined, () => this.#notify())
    this.cursorSecret = `call-sandbox cursor ${seed}`
    this.journal = new Journal(journalSize)
    this.#run = freshRun(this.#options)
    this.#keys = new Map(organizations.flatMap((organization) => organization.keys.map(({ key, scopes }) => [key, { key, scopes, organization }])))
    this.ready = this.#db.load(seedWorld({ seed, now, organizations }))
    this.handlers = createHandlers(this)
    const { live } = this.#options
    if (live !== undefined) {
      this.#liveTimer = setInterval(() => void this.liveTick().catch((error) => console.error('[call-sandbox] a live call failed:', error)), live)
      // @note Node: a live sandbox alone does not keep a test run or a script from ending.
      ;(this.#liveTimer as { unref?: () => void }).unref?.()
    }
  }

  /** The options in effect, defaults filled in; a scenario swap changes them. */
  get options(): ResolvedOptions {
    return this.#options
  }

  /** The records: read them here; write through the sandbox's methods. */
  get db(): Database {
    return this.#db
  }

  /** The rate limiter, when the sandbox has a rate limit. */
  get rateLimiter(): RateLimiter | undefined {
    return this.#run.rateLimiter
  }

  /**
   * The faults of the next API request, drawn from the seed: its latency
   * and, at the `errorRate`, a 500 or 503. The same requests in the same
   * order meet the same faults after every reset.
   *
   * @example
   * const { latencyMs, failure } = sandbox.nextFaults() // { latencyMs: 0 } without latency or errorRate
   */
  nextFaults(): { latencyMs: number; failure?: 500 | 503 } {
    const { latency, errorRate } = this.#options
    const { faults } = this.#run
    const latencyMs = latency === undefined ? 0 : latency.min === latency.max ? latency.min : faults.number.int(latency)
    if (errorRate === 0 || faults.number.float() >= errorRate) return { latencyMs }
    return { latencyMs, failure: faults.datatype.boolean() ? 500 : 503 }
  }

  get organizations(): readonly OrganizationFixture[] {
    return this.options.organizations
  }

  /** Every key of every organization, in fixture order. */
  get apiKeys(): ApiKey[] {
    return [...this.#keys.values()]
  }

  /** The key with its scopes and organization, or `undefined` for a key no organization has. */
  apiKey(key: string): ApiKey | undefined {
    return this.#keys.get(key)
  }

  /** An organization by id; the first one when no id is given. */
  organization(organizationId?: string): OrganizationFixture {
    if (organizationId === undefined) return this.organizations[0]!
    const organization = this.organizations.find((candidate) => candidate.organization_id === organizationId)
    if (!organization) {
      throw new TypeError(`No organization ${organizationId}; known: ${this.organizations.map((o) => o.organization_id).join(', ')}.`)
    }
    return organization
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
    const options = scenario === undefined || scenario === this.#options.scenario ? undefined : resolveOptions({ ...this.#input, scenario, now: this.#options.now, clock: this.#options.fixedClock ? 'fixed' : 'running' })
    await this.ready
    await this.#write(async () => {
      if (options) {
        const { seed, now, organizations } = options
        const db = new Database()
        await db.load(seedWorld({ seed, now, organizations }))
        this.#db = db
        this.#options = options
      } else {
        await this.db.rollback()
      }
      this.clock.reset()
      this.#writeCount = 0
      this.journal.clear()
      this.usage.clear()
      this.#run = freshRun(this.#options)
    }, { counted: false })
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
    if (this.#dueEndings(at ?? this.clock.now()).length === 0) return
    await this.#write(async () => this.#applyDue(at ?? this.clock.now()), { counted: false, changed: (applied) => applied > 0 })
  }

  /** What of the pending endings is due at `now`: live calls to end, leads and appointments to add. */
  #dueEndings(now: number): DueEnding[] {
    const due: DueEnding[] = []
    for (const [callId, ending] of this.db.pendingEndings()) {
      const live = this.db.get('calls', callId)!.ended_at === null
      if (live && Date.parse(ending.call.ended_at) > now) continue
      if (live) due.push({ kind: 'calls', callId, ending })
      for (const [kind, record] of [['leads', ending.lead], ['appointments', ending.appointment]] as const) {
        if (record && Date.parse(record.created_at) <= now && !this.db.get(kind, record.id)) due.push({ kind, record })
      }
    }
    return due
  }

  /** Applies what of the endings is due at `now`, inside a write; returns how many records it wrote. */
  async #applyDue(now: number): Promise<number> {
    const due = this.#dueEndings(now)
    for (const item of due) {
      if (item.kind !== 'calls') {
        await this.db.insert(item.kind, item.record as never)
        continue
      }
      const call = this.db.get('calls', item.callId)!
      const contact = this.db.get('contacts', call.contact_id)!
      const contactChanges = { email: contact.email ?? item.ending.contact_email, updated_at: laterOf(contact.updated_at, item.ending.call.ended_at) }
      this.db.check('calls', { ...call, ...item.ending.call })
      this.db.check('contacts', { ...contact, ...contactChanges })
      await this.db.update('calls', item.callId, item.ending.call)
      await this.db.update('contacts', contact.id, contactChanges)
    }
    return due.length
  }

  /**
   * One arrival of live mode: a caller rings and the call is in progress (or
   * being forwarded); it ends, and its lead or appointment appears, as the
   * clock goes on. A fixed clock moves on by the live interval first, so a
   * live sandbox with a fixed clock runs in steps, the same every time.
   * Arrivals are writes: they wait their turn, so ticks never overlap.
   *
   * @example
   * const { call } = await sandbox.liveTick()
   */
  async liveTick(): Promise<AddedCall> {
    await this.ready
    return this.#write(async (faker) => {
      const { live, fixedClock } = this.#options
      if (fixedClock && live !== undefined) this.clock.advance(live)
      await this.#applyDue(this.clock.now())
      const { arrivals } = this.#run
      const status = arrivals.datatype.boolean(0.8) ? 'in-progress' : 'forwarding'
      const organizations = this.organizations.filter((organization) => organization.calls > 0)
      const organization = organizations.length > 0 ? arrivals.helpers.arrayElement(organizations) : this.organization()
      return this.#store(this.#tell({ status, organization_id: organization.organization_id }, faker))
    })
  }

  /**
   * Stops live mode's arrivals; the server calls it when it closes.
   *
   * @example
   * afterAll(() => sandbox.stop())
   */
  stop(): void {
    clearInterval(this.#liveTimer)
    this.#liveTimer = undefined
  }

  /**
   * The clock as `GET /_sandbox/clock` shows it.
   *
   * @example
   * sandbox.clockState() // { now: '2026-11-20T12:00:00.000Z', mode: 'fixed' }
   */
  clockState(): { now: string; mode: 'fixed' | 'running' } {
    return { now: this.clock.iso(), mode: this.clock.fixed ? 'fixed' : 'running' }
  }

  /**
   * What `GET /_sandbox/health` shows: the world, the clock, the journal.
   *
   * @example
   * sandbox.health().records.calls // 340 in the default world
   */
  health() {
    const { seed, scenario, live } = this.#options
    return {
      status: 'ok' as const,
      seed,
      scenario,
      clock: this.clockState(),
      records: { calls: this.db.count('calls'), contacts: this.db.count('contacts'), leads: this.db.count('leads'), appointments: this.db.count('appointments') },
      journal: { entries: this.journal.size, capacity: this.journal.capacity },
      live: { interval_ms: live ?? null },
    }
  }

  /**
   * Calls `listener` after every write, every reset and every move of the
   * clock (the standalone server saves its data file there). Returns a function that removes it.
   *
   * @example
   * const stop = sandbox.onChange(() => console.log(sandbox.changes().inserted.length))
   */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** What the writes since the seed changed, as it stands now: what a data file keeps. */
  changes(): SandboxChanges {
    return { writes: this.#writeCount, ...this.db.changes() }
  }

  /**
   * Replays `changes()` of an earlier sandbox with the same seed, `now` and
   * organizations onto this one, before anything else is written to it.
   * Writes after it go on as they would have in the earlier one.
   *
   * @example
   * await fresh.restore(earlier.changes())
   */
  async restore(changes: SandboxChanges): Promise<void> {
    await this.ready
    if (this.db.changed) throw new Error('restore() takes a sandbox nothing was written to yet.')
    await this.#write(async () => {
      for (const { kind, record } of changes.inserted) await this.db.insert(kind, record)
      for (const { kind, record } of changes.changed) {
        if (!this.db.get(kind, record.id)) throw new Error(`The ${kind} record ${record.id} to restore is not in this world.`)
        await this.db.update(kind, record.id, record)
      }
      this.#writeCount = changes.writes
    }, { counted: false })
  }

  /**
   * Creates a contact as `POST /v1/contacts` does (the same checks and errors).
   *
   * @example
   * await sandbox.addContact({ phone: '+14155550123', name: 'Dana Whitfield' })
   */
  async addContact(input: CreateContactRequest & { organization_id?: string }): Promise<StoredContact> {
    const { organization_id, ...fields } = input
    const organization = this.organization(organization_id)
    await this.ready
    return this.createContact(organization.organization_id, parseBody(CreateContactRequest, fields))
  }

  /**
   * Creates an API contact from a checked body: what `POST /v1/contacts`
   * does once the body passed; 409 `contact_exists` when its phone is taken.
   * `addContact` checks the body first.
   */
  async createContact(organizationId: string, body: CreateContactRequest): Promise<StoredContact> {
    return this.#write(async (faker) => {
      const existing = this.db.contactByPhone(organizationId, body.phone)
      if (existing) {
        throw new ApiError('contact_exists', `A contact with phone ${body.phone} already exists (${existing.id}).`, {
          details: { contact_id: existing.id },
        })
      }
      const now = this.clock.iso()
      return this.db.insert('contacts', {
        id: uuid(faker),
        organization_id: organizationId,
        phone: body.phone,
        name: body.name ?? null,
        email: body.email ?? null,
        company: body.company ?? null,
        source: 'api',
        total_calls: 0,
        last_call_at: null,
        notes: body.notes ?? null,
        created_at: now,
        updated_at: now,
      })
    })
  }

  /**
   * An inbound call, told like the seeded ones: the caller's contact is made
   * or updated, and a lead or an appointment follows when the reason brings one.
   *
   * @example
   * const { call, lead } = await sandbox.addCall({ reason: 'implant_quote' })
   */
  async addCall(input: AddCallInput = {}): Promise<AddedCall> {
    await this.ready
    return this.#write(async (faker) => this.#store(this.#tell(input, faker)))
  }

  /**
   * A completed call the assistant handled, whose reason brings a lead, and
   * that lead with `lead` overrides applied.
   *
   * @example
   * const { lead } = await sandbox.addLead({ lead: { status: 'qualified', urgency: 'high' } })
   */
  async addLead(input: Omit<AddCallInput, 'status' | 'reason'> & { lead?: Partial<Pick<StoredLead, LeadOverridable>> } = {}): Promise<AddedCall & { lead: StoredLead }> {
    const { lead: overrides, ...call } = input
    return this.#addCallThatCreates('lead', call, (story) => story.lead && { ...story, lead: { ...story.lead, ...overrides } })
  }

  /**
   * A completed call the assistant handled, whose reason books an
   * appointment, and that appointment with `appointment` overrides applied.
   *
   * @example
   * const { appointment } = await sandbox.addAppointment({ appointment: { status: 'cancelled' } })
   */
  async addAppointment(
    input: Omit<AddCallInput, 'status' | 'reason'> & { appointment?: Partial<Pick<StoredAppointment, 'status' | 'service_type'>> } = {},
  ): Promise<AddedCall & { appointment: StoredAppointment }> {
    const { appointment: overrides, ...call } = input
    return this.#addCallThatCreates('appointment', call, (story) => story.appointment && { ...story, appointment: { ...story.appointment, ...overrides } })
  }

  async #addCallThatCreates<T extends AddedCall>(
    what: 'lead' | 'appointment',
    input: Omit<AddCallInput, 'status' | 'reason'>,
    withOverrides: (story: CallStory) => CallStory | undefined,
  ): Promise<T> {
    await this.ready
    return this.#write(async (faker) => {
      const organization = this.organization(input.organization_id)
      const reasons = businessTypes.get(organization.business_type)!.reasons.filter((candidate) => candidate.creates.includes(what))
      if (reasons.length === 0) throw new TypeError(`No reason of ${organization.business_type} creates a ${what}.`)
      const reason = weighted(faker, reasons.map((candidate) => [candidate.id, candidate.weight] as const))
      const story = withOverrides(this.#tell({ ...input, status: 'completed', reason }, faker, 'handled'))
      if (!story) throw new TypeError(`The call ended too recently for its ${what} to exist yet: give an earlier started_at.`)
      return (await this.#store(story)) as T
    })
  }

  /** The story of a call, told but not stored: every input is checked first. */
  #tell(input: AddCallInput, faker: Faker, ending?: Ending): CallStory {
    const organization = this.organization(input.organization_id)
    const status = CallStatus.safeParse(input.status ?? 'completed')
    if (!status.success) throw new TypeError(`status must be one of ${CallStatus.options.join(', ')}; got ${String(input.status)}.`)
    if (input.caller_phone !== undefined && !E164_PATTERN.test(input.caller_phone)) {
      throw new TypeError(`caller_phone must be an E.164 number such as +14155550123; got ${input.caller_phone}.`)
    }
    const now = this.clock.now()
    const live = LIVE_CALL_STATUSES.includes(status.data)
    const startedAt = input.started_at === undefined ? now - (live ? 1 : 10) * MINUTE : parseInstant(input.started_at)
    if (startedAt === undefined || startedAt > now) {
      throw new TypeError(`started_at must be an ISO 8601 date-time no later than the sandbox clock (${this.clock.iso()}); got ${input.started_at}.`)
    }
    return tellCall(
      {
        organization,
        business: businessTypes.get(organization.business_type)!,
        faker,
        isPhoneTaken: (phone) => this.db.contactByPhone(organization.organization_id, phone) !== undefined,
      },
      {
        status: status.data,
        startedAt,
        now,
        contact: input.caller_phone === undefined ? undefined : this.db.contactByPhone(organization.organization_id, input.caller_phone),
        reason: input.reason,
        callerPhone: input.caller_phone,
        ending,
      },
    )
  }

  /**
   * Stores what a story made: the caller's contact (new or updated), the
   * call, a lead, an appointment. They are recorded now: their `created_at`
   * (and `updated_at`) is the sandbox clock, whenever the call started, so
   * that a client polling with `since` sees them arrive.
   */
  async #store(story: CallStory): Promise<AddedCall> {
    const recorded = this.clock.iso()
    const later = (at: string) => laterOf(at, recorded)
    const existing = this.db.get('contacts', story.contact.id)
    const contactRecord = existing
      ? { ...story.contact, updated_at: later(story.contact.updated_at) }
      : { ...story.contact, created_at: recorded, updated_at: later(story.contact.updated_at) }
    const callRecord = { ...story.call, created_at: recorded }
    const leadRecord = story.lead && { ...story.lead, created_at: recorded, updated_at: later(story.lead.updated_at) }
    const appointmentRecord = story.appointment && { ...story.appointment, created_at: recorded, updated_at: later(story.appointment.updated_at) }
    // Every record is checked before the first is stored: a write stores all of them or none.
    this.db.check('contacts', existing ? { ...existing, ...contactRecord } : contactRecord, { insert: !existing })
    this.db.check('calls', callRecord, { insert: true })
    if (leadRecord) this.db.check('leads', leadRecord, { insert: true })
    if (appointmentRecord) this.db.check('appointments', appointmentRecord, { insert: true })
    const contact = existing ? await this.db.update('contacts', existing.id, contactRecord) : await this.db.insert('contacts', contactRecord)
    const call = await this.db.insert('calls', callRecord)
    const lead = leadRecord && (await this.db.insert('leads', leadRecord))
    const appointment = appointmentRecord && (await this.db.insert('appointments', appointmentRecord))
    return { call, contact, ...(lead && { lead }), ...(appointment && { appointment }) }
  }

  /** Tells the `onChange` listeners; one that throws is logged and does not stop the others. */
  #notify(): void {
    for (const listener of this.#listeners) {
      try {
        listener()
      } catch (error) {
        console.error('[call-sandbox] an onChange listener failed:', error)
      }
    }
  }

  /**
   * Runs writes one at a time, so that a check and the write it guards (a
   * phone not yet taken, then the contact) never interleave with another.
   * Each write draws from a random stream of its own number since the seed,
   * so that the ids it makes do not depend on how many draws came before:
   * a sandbox restored from a data file goes on where the earlier one was.
   * A write checks every record before it stores the first, so one that
   * fails leaves no trace, not even its number; a reset or a restore sets
   * the number rather than taking one. `changed` says whether the write
   * changed anything the listeners should hear of.
   */
  #write<T>(write: (faker: Faker) => Promise<T>, { counted = true, changed = (_value: T): boolean => true } = {}): Promise<T> {
    const result = this.#writes.then(async () => {
      const value = await write(createFaker(this.options.seed, `write ${this.#writeCount + 1}`))
      if (counted) this.#writeCount++
      if (changed(value)) this.#notify()
      return value
    })
    this.#writes = result.catch(() => undefined)
    return result
  }
}

type LeadOverridable = 'status' | 'urgency' | 'interest' | 'qualification_reason'

/** The rate limits and random streams of a run of requests; a reset starts a fresh one. */
interface Run {
  rateLimiter: RateLimiter | undefined
  /** Latency and failures of `errorRate`. */
  faults: Faker
  /** Live mode's callers. */
  arrivals: Faker
}

function freshRun({ seed, rateLimit }: ResolvedOptions): Run {
  return { rateLimiter: rateLimit && new RateLimiter(rateLimit), faults: createFaker(seed, 'faults'), arrivals: createFaker(seed, 'live') }
}

/** One thing a live call's ending brings that is due: the call's end, or its lead or appointment. */
type DueEnding = { kind: 'calls'; callId: string; ending: CallEnding } | { kind: 'leads' | 'appointments'; record: StoredLead | StoredAppointment }

/**
 * Creates a sandbox from options; see {@link SandboxOptions}.
 *
 * @example
 * const sandbox = createSandbox({ seed: 7, now: '2026-11-20T12:00:00Z', calls: 2_000 })
 */
export function createSandbox(options?: SandboxOptions): Sandbox {
  return new Sandbox(options)
}
