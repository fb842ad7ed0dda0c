import { MemoryRuleBook, RuleBudget } from '../sandbox/FaultRules.js'
import { Journal } from '../sandbox/Journal.js'
import { faultOptionsOf, resolveOptions, type SandboxOptions, seedOfOptions } from '../sandbox/options.js'
import { Sandbox } from '../sandbox/Sandbox.js'
import { SessionExistsError, SessionLimitError } from './sessionErrors.js'
import { Listeners } from '../sandbox/Listeners.js'
import { restoreSnapshot, seedOptionsOf, snapshotOf } from '../sandbox/snapshot.js'
import { SessionEnded } from '../sandbox/StoreLog.js'
import { SessionStore } from './SessionStore.js'
import type { Store, StoredSession } from './Store.js'
import { DEFAULT_SESSION, SESSION_NAME_PATTERN, type CreateSessionRequest, type SessionInfo } from '../schemas/index.js'
import { expiresAt, parseSessionTtl } from './expiry.js'
import { type Settings, settingsChangeOf } from '../sandbox/Settings.js'
import { checkedName, holdsNothing, newSession, newSessionName, type Session } from './Session.js'

export { DEFAULT_SESSION }
/** How many sessions' worlds stay in memory by default (`--max-sessions`). */
export const DEFAULT_MAX_SESSIONS = 200
/** How many named sessions a server keeps by default, in memory or put away (`--session-limit`). */
export const DEFAULT_SESSION_LIMIT = 10_000

/** How many sessions a server keeps, and for how long. */
export interface SessionLimits {
  /**
   * Sessions whose worlds stay in memory (`--max-sessions`); past it, the least recently used idle one is put away (kept
   * as its seed, its writes, its journal and its usage report). Default 200.
   */
  maxSessions?: number
  /** Named sessions kept in all, in memory or put away (`--session-limit`); past it a new name is refused. Default 10,000. */
  sessionLimit?: number
  /**
   * How long a session may go unused before it is forgotten (`--session-ttl`): milliseconds, or `'30m'`, `'24h'`,
   * `'7d'`; `0`, `'off'` or `false`: never. Default a day. The default session is never forgotten.
   */
  sessionTtl?: number | string | false
}

export type { StoredSession }

/**
 * The sessions of one server: a name for each world, made on its first
 * request from the server's options (or those it was created with), and
 * kept to at most `maxSessions` worlds in memory. The least recently used
 * idle session is put away as its snapshot (its seed plus its writes), its
 * journal and its usage report, and comes back as it was; one that holds
 * nothing but its seed is simply forgotten and comes back the same from it.
 * At most `sessionLimit` named sessions are kept in all, and one unused for
 * the TTL is forgotten. The default session (the bare root) is the server's
 * own world: never put away, never forgotten.
 *
 * @example
 * const sessions = new Sessions(sandbox, options)
 * await sessions.use('ci-worker-3', (world) => world.addContact({ phone: '+14155550123' }))
 */
export class Sessions {
  /** Named sessions, least recently used first. */
  readonly #sessions = new Map<string, Session>()
  readonly #default: Session
  /** The rules all its sessions' books hold together (`MAX_FAULT_RULES_IN_SERVER`). */
  readonly #ruleBudget = new RuleBudget()
  #inMemory = 0
  readonly #listeners = new Listeners('a sessions listener')
  #store = new SessionStore()
  readonly maxSessions: number
  readonly sessionLimit: number
  /** How long a session may go unused before it is forgotten, in milliseconds; undefined: never. */
  readonly sessionTtl: number | undefined
  /** Forgets expired sessions now and then, while there are named sessions and a TTL. */
  #sweeper: ReturnType<typeof setInterval> | undefined

  /**
   * @param base The default session's world: the server's own. Every session's journal shares its journal's budget.
   * @param options The options new sessions are made from (the server's); `now` defaults to the base world's seed
   * instant.
   */
  constructor(
    readonly base: Sandbox,
    private readonly options: SandboxOptions = {},
    { maxSessions = DEFAULT_MAX_SESSIONS, sessionLimit = DEFAULT_SESSION_LIMIT, sessionTtl }: SessionLimits = {},
  ) {
    for (const [name, value] of Object.entries({ maxSessions, sessionLimit })) {
      if (!Number.isSafeInteger(value) || value < 1)
        throw new TypeError(`${name} must be a positive integer; got ${String(value)}.`)
    }
    this.maxSessions = maxSessions
    this.sessionLimit = sessionLimit
    this.sessionTtl = parseSessionTtl(sessionTtl)
    this.#default = {
      ...newSession(DEFAULT_SESSION, undefined, base.journal),
      world: base,
      usage: base.usage,
      settings: base.settings,
    }
  }

  /**
   * Whether a name can be a session's: 1 to 64 of `A-Z a-z 0-9 . _ -`.
   *
   * @example
   * Sessions.isName('ci-worker-3') // true
   */
  static isName(name: string): boolean {
    return SESSION_NAME_PATTERN.test(name)
  }

  /** Runs `answer` with a session's world, making it or bringing it back first; while it runs, it is not put away. */
  async use<T>(name: string, answer: (world: Sandbox) => Promise<T>): Promise<T> {
    const session = this.#touch(name)
    session.requests++
    session.inFlight++
    try {
      return await answer(await this.#worldOf(session))
    } catch (error) {
      if (!(error instanceof SessionEnded)) throw error
      // Ended on another server while this one held its world: gone here too, and the name's fresh session answers.
      if (this.#sessions.get(name) === session) this.#drop(session)
      this.#listeners.notify()
      return this.use(name, answer)
    } finally {
      session.inFlight--
      session.lastUsedAt = Date.now()
      // Ended while it answered: what it journaled since is not kept either.
      if (session !== this.#default && this.#sessions.get(name) !== session) session.journal.clear()
      this.#putAwayOverCap()
    }
  }

  /**
   * A session's world, in memory. A world put away later is a copy nobody
   * answers from: in process, call `open` again rather than keep it.
   *
   * @example
   * const world = await sandbox.sessions.open('alice')
   */
  open(name: string): Promise<Sandbox> {
    return this.use(name, async (world) => world)
  }

  /**
   * Creates a session with options of its own; throws a `SessionExistsError`
   * when the name is taken, and a `TypeError` or `RangeError` for options no
   * world can be seeded from (`now` out of range). Without a name, one is made up.
   */
  async create(name: string | undefined, options: Omit<CreateSessionRequest, 'name'> = {}): Promise<SessionInfo> {
    const chosen = checkedName(name ?? newSessionName())
    if (chosen === DEFAULT_SESSION || this.#sessions.has(chosen)) throw new SessionExistsError(chosen)
    const session = this.#admit(chosen, options)
    // Options its world could not be seeded from are refused now, not at its first request.
    session.settings.startFrom(resolveOptions(this.#optionsOf(session)))
    this.#sessions.set(chosen, session)
    try {
      await this.#store.putInStore(session)
    } catch (error) {
      this.#sessions.delete(chosen)
      throw error
    }
    this.#listeners.notify()
    return this.#infoOf(session)
  }

  /** The session of a name, if there is one. */
  info(name: string): SessionInfo | undefined {
    const session = name === DEFAULT_SESSION ? this.#default : this.#sessions.get(name)
    return session && this.#infoOf(session)
  }

  /** Whether the server keeps a session of this name (the default one always). */
  has(name: string): boolean {
    return name === DEFAULT_SESSION || this.#sessions.has(name)
  }

  /** How many named sessions the server keeps, in memory or put away (at most `sessionLimit`). */
  get size(): number {
    return this.#sessions.size
  }

  /** Every session, the default first, then the least recently used first. */
  list(): SessionInfo[] {
    return [this.#default, ...this.#sessions.values()].map((session) => this.#infoOf(session))
  }

  /** Ends a session: its world and whatever it kept are gone. Returns what it was, or undefined for no such session. */
  async delete(name: string): Promise<SessionInfo | undefined> {
    const session = this.#sessions.get(name)
    if (!session) return undefined
    await this.#store.ended(session)
    if (this.#sessions.get(name) !== session) return undefined
    const info = this.#infoOf(session)
    this.#drop(session)
    this.#listeners.notify()
    return info
  }

  /**
   * Forgets every session unused for the TTL at `now`, and every one put away
   * with nothing left of it (its journal spent by the budget): its world,
   * snapshot, journal and usage report. A session answering a request stays.
   * The server does it now and then, and before it refuses a new session at
   * the limit; a store that can forget a session is told to.
   *
   * @example
   * sandbox.sessions.expire(Date.now() + 25 * 3_600_000) // every named session unused for a day: forgotten
   */
  expire(now = Date.now()): string[] {
    const forgotten: string[] = []
    for (const session of this.#sessions.values()) {
      if (session.inFlight > 0 || session.loading) continue
      const expiry = expiresAt(session.name, session.lastUsedAt, this.sessionTtl)
      const expired = expiry !== undefined && expiry <= now
      if (!expired && !holdsNothing(session)) continue
      this.#drop(session)
      if (expired) this.#store.expired(session)
      forgotten.push(session.name)
    }
    if (this.#sessions.size === 0) this.#stopSweeping()
    if (forgotten.length > 0) this.#listeners.notify()
    return forgotten
  }

  /** Every named session that holds more than its seed, as a store keeps them when it compacts. */
  stored(): StoredSession[] {
    const stored: StoredSession[] = []
    for (const session of this.#sessions.values()) {
      const inMemory = session.world && session.changed
      const snapshot = inMemory ? snapshotOf(session.world!) : session.saved
      const entries = inMemory ? [] : session.entries
      if (session.options || snapshot || entries.length > 0) {
        stored.push({
          name: session.name,
          created_at: new Date(session.createdAt).toISOString(),
          options: session.options ?? null,
          snapshot: snapshot ?? null,
          entries,
        })
      }
    }
    return stored
  }

  /**
   * Takes the sessions a store kept, put away: each comes back at its first
   * request, its snapshot then its log put back. Throws, taking none, when
   * one was seeded other than these options would seed it (other
   * organizations or sizes). With `store`, every session's writes go there
   * from now on, the default session's too (`Sandbox.keepWritesIn`).
   */
  load(stored: readonly StoredSession[], store?: Store): void {
    const sessions = stored.map(({ name, created_at, options, snapshot, entries }): Session => {
      const session: Session = {
        ...this.#newSession(checkedName(name), options ?? undefined, Date.parse(created_at)),
        // Its last use before the restart is not known: its TTL runs from now.
        lastUsedAt: Date.now(),
        saved: snapshot ?? undefined,
        entries,
        inStore: store !== undefined,
      }
      if (
        snapshot &&
        seedOfOptions(resolveOptions(seedOptionsOf(this.#optionsOf(session), snapshot))).organizations !==
          snapshot.organizations
      ) {
        throw new TypeError(`The session ${name} belongs to other organizations or sizes.`)
      }
      return session
    })
    for (const session of sessions) this.#sessions.set(session.name, session)
    if (sessions.length > 0) this.#startSweeping()
    if (!store) return
    this.#store = new SessionStore(store)
    this.base.keepWritesIn(store.log(DEFAULT_SESSION))
  }

  /** Calls `listener` after any session changed, was made or was ended. */
  onChange(listener: () => void): () => void {
    return this.#listeners.add(listener)
  }

  /** Stops every session's live mode, and the forgetting of expired sessions (the server closes). */
  stop(): void {
    for (const session of this.#sessions.values()) session.world?.stop()
    this.#stopSweeping()
  }

  /** The session of a name, made when it is new, moved to the most recently used end. */
  #touch(name: string): Session {
    if (name === DEFAULT_SESSION) return this.#default
    let session = this.#sessions.get(name)
    if (session) this.#sessions.delete(name)
    else session = this.#admit(checkedName(name), undefined)
    this.#sessions.set(name, session)
    return session
  }

  /** A new session, when the limit leaves room for it (once expired ones are forgotten); else a `SessionLimitError`. */
  #admit(name: string, options: Session['options']): Session {
    if (this.#sessions.size >= this.sessionLimit) this.expire()
    if (this.#sessions.size >= this.sessionLimit) {
      const oldest = this.#leastRecentlyUsedIdle()
      const expiry = oldest && expiresAt(oldest.name, oldest.lastUsedAt, this.sessionTtl)
      const retryAfter = expiry === undefined ? undefined : Math.max(1, Math.ceil((expiry - Date.now()) / 1_000))
      throw new SessionLimitError(name, this.sessionLimit, retryAfter)
    }
    this.#startSweeping()
    return this.#newSession(name, options)
  }

  #leastRecentlyUsedIdle(): Session | undefined {
    for (const session of this.#sessions.values()) if (session.inFlight === 0) return session
    return undefined
  }

  #newSession(name: string, options: Session['options'], createdAt?: number): Session {
    const journal = new Journal(this.base.journal.capacity, this.base.journal.budget)
    return newSession(name, options, journal, createdAt, new MemoryRuleBook(this.#ruleBudget))
  }

  /** Takes a session out: its world stopped, its journal's bytes given back. */
  #drop(session: Session): void {
    this.#sessions.delete(session.name)
    session.journal.clear()
    void session.faultRules.clear()
    if (session.world) {
      session.world.stop()
      session.world = undefined
      this.#inMemory--
    }
  }

  #startSweeping(): void {
    if (this.#sweeper || this.sessionTtl === undefined) return
    // Often enough that a session goes within about half its TTL of expiring, and at least once a minute.
    this.#sweeper = setInterval(() => this.expire(), Math.min(Math.max(this.sessionTtl / 2, 10), 60_000))
    // @note Unref'd: an idle sandbox in a test runner must not keep Node from exiting.
    ;(this.#sweeper as { unref?: () => void }).unref?.()
  }

  #stopSweeping(): void {
    clearInterval(this.#sweeper)
    this.#sweeper = undefined
  }

  async #worldOf(session: Session): Promise<Sandbox> {
    if (session.world) return session.world
    session.loading ??= this.#bringIn(session).finally(() => (session.loading = undefined))
    return session.loading
  }

  /** Makes a session's world from its seed, and puts back what it had when it was put away. */
  async #bringIn(session: Session): Promise<Sandbox> {
    await this.#store.madeElsewhere(session)
    const options = this.#optionsOf(session)
    const cursorSecret = `call-sandbox cursor ${options.seed ?? 1} session ${session.name}`
    const { journal, usage, settings } = session
    const world = new Sandbox(session.saved ? seedOptionsOf(options, session.saved) : options, {
      cursorSecret,
      journal,
      usage,
      settings,
    })
    world.faults.keepIn(session.faultRules)
    if (session.saved) await restoreSnapshot(world, session.saved)
    await world.replay(session.entries)
    const store = this.#store.world(session.name, () => this.#sessions.get(session.name))
    if (store) world.keepWritesIn(store)
    // Ended while it was being brought back: it answers what it was asked, and is not kept.
    if (this.#sessions.get(session.name) !== session) {
      world.stop()
      return world
    }
    session.world = world
    session.changed = session.entries.length > 0
    session.entries = []
    world.onChange(() => {
      session.changed = true
      this.#listeners.notify()
    })
    this.#inMemory++
    return world
  }

  /**
   * The options a session's world is seeded from: the server's, at the default world's instant, with the session's own
   * over them.
   */
  #optionsOf({ options: own }: Session): SandboxOptions {
    const base = this.base.options
    const inherited: SandboxOptions = {
      ...this.options,
      seed: base.seed,
      now: base.now,
      clock: base.fixedClock ? 'fixed' : 'running',
    }
    if (!own) return inherited
    const { latency, error_rate, rate_limit, ...world } = own
    const settings = settingsChangeOf({ latency, error_rate, rate_limit })
    return { ...inherited, ...world, ...settings, clock: own.now !== undefined ? 'fixed' : inherited.clock }
  }

  /**
   * A session's settings, their start worked out from its options (and the scenario its last reset seeded) before its
   * world is made: only its settings' options, not the world's, which a list of thousands put away would wait for.
   */
  #settingsOf(session: Session): Settings {
    if (!session.settings.started) {
      const options = this.#optionsOf(session)
      const reset = session.entries.findLast((entry) => 'reset' in entry)
      const seeded = reset && 'reset' in reset ? reset.reset : session.saved
      session.settings.startFrom(faultOptionsOf(seeded ? seedOptionsOf(options, seeded) : options))
    }
    return session.settings
  }

  /** While more worlds are in memory than the cap, puts away the least recently used idle one. */
  #putAwayOverCap(): void {
    if (this.#inMemory <= this.maxSessions) return
    for (const session of this.#sessions.values()) {
      if (this.#inMemory <= this.maxSessions) return
      if (!session.world || session.inFlight > 0) continue
      this.#putAway(session)
    }
  }

  #putAway(session: Session): void {
    const world = session.world!
    world.stop()
    session.world = undefined
    this.#inMemory--
    // A store several servers share holds all of it: it comes back from its log there, as other servers left it.
    if (this.#store.shared) return
    if (session.changed) session.saved = snapshotOf(world)
    else if (holdsNothing(session)) this.#sessions.delete(session.name)
  }

  #infoOf(session: Session): SessionInfo {
    const world = session.world
    const expiry = expiresAt(session.name, session.lastUsedAt, this.sessionTtl)
    return {
      name: session.name,
      created_at: new Date(session.createdAt).toISOString(),
      last_used_at: new Date(session.lastUsedAt).toISOString(),
      writes: world ? world.writeCount : (session.saved?.changes.writes ?? 0),
      requests: session.requests,
      in_memory: world !== undefined,
      expires_at: expiry === undefined ? null : new Date(expiry).toISOString(),
      settings: this.#settingsOf(session).state(),
    }
  }
}
