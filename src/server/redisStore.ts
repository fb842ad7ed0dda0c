import { randomUUID } from 'node:crypto'
import { StorageUnavailableError } from '../sandbox/domainErrors.js'
import { SessionExistsError, SessionLimitError } from '../sessions/sessionErrors.js'
import type { StoreHealth } from '../schemas/index.js'
import { SessionOptions, type SeedIdentity } from '../schemas/snapshot.js'
import { LogMovedOn } from '../sandbox/StoreLog.js'
import { DEFAULT_JOURNAL_BYTES } from '../sandbox/JournalBudget.js'
import { DEFAULT_SESSION, DEFAULT_SESSION_LIMIT } from '../sessions/Sessions.js'
import type { FirstRead, StoredSession, SessionEntry, SharedLog, Store } from '../sessions/Store.js'
import {
  COMMAND_QUEUE_LIMIT,
  type Command,
  connectRedis,
  type RedisConnection,
  type ReplicaWaits,
  StoreTimeout,
} from './redisConnection.js'
import { rulesTally } from './redisFaultRules.js'
import { redisLog } from './redisLog.js'
import { journalTally, type RequestsContext } from './redisRequests.js'
import { allKeys, evalOf, FORGET, keyOf, SESSIONS_KEY, WORLD_KEY } from './redisScripts.js'

/*
 * `--store redis://host:port[/db]`, or a Redis Cluster's nodes: every
 * session's log in Redis, so that any number of servers given the same
 * store are one sandbox. A server holds a world at a place in its log;
 * before every answer it reads what is after that place (one round trip),
 * and it appends only where it stands: a server that lost the race reads
 * what won, and runs its write again. The keys, and the scripts that keep
 * all this whole, are in `redisScripts.ts`.
 */

/** A name in `call-sandbox:sessions` whose session is gone is forgotten once it is this old (a making under way is not). */
const FORGOTTEN_AFTER_MS = 60_000
/** How often, at most, a server at the session limit looks for names of sessions gone (one read per name). */
const PRUNED_EVERY_MS = 5_000

/**
 * Lists session ARGV[1] in `call-sandbox:sessions`, made at ARGV[2] (ms), unless it is new and ARGV[3] sessions are
 * listed already: 1, or 0. In one script, so that servers making sessions at once do not pass the limit together.
 */
const ADMIT = `
if redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
  return 1
end
return 0
`

export interface RedisStoreOptions {
  /** How many replicas must have a write before it is answered (`--store-replicas`); default `auto`. */
  replicas?: ReplicaWaits
  /** How long a named session's keys live unused before Redis drops them; default: for ever. */
  sessionTtlMs?: number
  /** How long a command waits for Redis's answer, then 503 (`--store-timeout`); default 2 s. */
  timeoutMs?: number
  /** The bytes the fleet's journals may hold in Redis together (`--journal-bytes`); default 128 MiB. */
  journalBytes?: number
  /** How many named sessions the fleet keeps in Redis (`--session-limit`); default 10,000. */
  sessionLimit?: number
}

type Limits = Pick<RedisStoreOptions, 'sessionTtlMs' | 'journalBytes' | 'sessionLimit'>

/**
 * The Redis store of a fleet of servers.
 *
 * @example
 * const store = await RedisStore.open('redis://127.0.0.1:6379', seedOf(sandbox))
 */
export class RedisStore implements Store {
  readonly shared = true
  /** A fleet's servers are seeded from their options, which `read` checks against the store's world. */
  readonly seededFrom = undefined
  readonly #connection: RedisConnection
  readonly #sessionTtlMs: number
  readonly #journalBytes: number
  readonly #sessionLimit: number
  /** What the fleet's sessions hold together (see `Tally`). */
  readonly #tallies: RequestsContext['tallies']
  #prunedAt = Number.NEGATIVE_INFINITY
  /** This server, to tell which one holds the lease on a world's timed work. */
  readonly #id = randomUUID()
  #error: string | null = null
  #errors = 0
  /** The journal batches gathered and not sent yet (see `sharedRequests`). */
  readonly #unsent = new Set<() => Promise<unknown>>()

  private constructor(connection: RedisConnection, { sessionTtlMs, journalBytes, sessionLimit }: Required<Limits>) {
    this.#connection = connection
    this.#sessionTtlMs = sessionTtlMs
    this.#journalBytes = journalBytes
    this.#sessionLimit = sessionLimit
    // Sessions expire at this TTL: one not reported for as long may be gone, and is asked.
    const context = { send: (key: string, command: Command) => this.#send(key, command), ttlMs: sessionTtlMs }
    this.#tallies = { journals: journalTally(context), rules: rulesTally(context) }
  }

  /** Connects; the first `read` checks that the store belongs to the world. */
  static async open(url: string, options: RedisStoreOptions = {}): Promise<RedisStore> {
    const { replicas = 'auto', sessionTtlMs = 0, timeoutMs } = options
    const { journalBytes = DEFAULT_JOURNAL_BYTES, sessionLimit = DEFAULT_SESSION_LIMIT } = options
    for (const [name, value, least] of [
      ['sessionTtlMs', sessionTtlMs, 0],
      ['journalBytes', journalBytes, 1],
      ['sessionLimit', sessionLimit, 1],
    ] as const) {
      if (!Number.isSafeInteger(value) || value < least) {
        throw new TypeError(`${name} is a whole number from ${least}; got ${value}.`)
      }
    }
    if (replicas !== 'auto' && (!Number.isSafeInteger(replicas) || replicas < 0)) {
      throw new TypeError(`--store-replicas takes auto or a whole number of replicas; got ${replicas}.`)
    }
    let store: RedisStore | undefined
    const connection = await connectRedis(
      url,
      replicas,
      {
        failed: (error) => {
          if (store) store.#failed(error)
        },
        ready: () => {
          if (store) store.#error = null
        },
      },
      timeoutMs,
    )
    store = new RedisStore(connection, { sessionTtlMs, journalBytes, sessionLimit })
    return store
  }

  /**
   * Checks that the store belongs to this world (the same seed, seed instant, clock and organizations as the servers
   * before; a fleet's servers may reset to other scenarios): a store used for the first time takes this world. Every
   * world is read from its log at its first request (the default one's at once, by its `catchUp`).
   */
  async read({ scenario: _, ...world }: SeedIdentity): Promise<FirstRead> {
    const text = JSON.stringify(world)
    const connection = this.#connection
    await connection.send(WORLD_KEY, ['SET', WORLD_KEY, text, 'NX'])
    const held = await connection.send(WORLD_KEY, ['GET', WORLD_KEY])
    if (held !== text) throw this.unfit(`it holds another world (${held})`)
    return { world: { snapshot: null, entries: [] }, sessions: await this.sessions(), logged: 0 }
  }

  /** Redis compacts each log as it goes (see `SharedLog.compactWith`): nothing to do at start-up. */
  async restored(): Promise<void> {}

  unfit(reason: string): Error {
    return new Error(
      `${this.#connection.where}: ${reason}: start every server with the same --seed, --now, --organizations and --calls, or give this one another store.`,
    )
  }

  /** A session's keys expire in Redis on their own (`sessionTtlMs`): other servers may still use it until then. */
  async forget(): Promise<void> {}

  /** How many commands Redis did not answer since the server started. */
  get errors(): number {
    return this.#errors
  }

  health(): StoreHealth {
    return { kind: 'redis', state: this.#error === null ? 'ok' : 'unavailable', error: this.#error }
  }

  /** Every named session the store knows, each to be read from its log at its first request. */
  async sessions(): Promise<StoredSession[]> {
    const named = (await this.#send(SESSIONS_KEY, ['ZRANGE', SESSIONS_KEY, '0', '-1', 'WITHSCORES'])) as Array<
      [string, number]
    >
    const found = await Promise.all(
      named.map(async ([name, score]) => {
        const session = await this.session(name)
        if (!session && Date.now() - Number(score) > FORGOTTEN_AFTER_MS) {
          // Expired or ended: the name is forgotten, unless it was made again since.
          await this.#send(SESSIONS_KEY, evalOf(FORGET, [SESSIONS_KEY], [name, score]))
        }
        return session
      }),
    )
    return found.filter((session) => session !== undefined)
  }

  async session(name: string): Promise<StoredSession | undefined> {
    const key = keyOf(name, 'session')
    const text = await this.#send(key, ['GET', key])
    if (typeof text !== 'string') return undefined
    const { created_at, options } = JSON.parse(text) as { created_at: string; options: SessionOptions }
    return { name, created_at, options: SessionOptions.parse(options), snapshot: null, entries: [] }
  }

  async append(session: string, entry: SessionEntry): Promise<void> {
    if ('created' in entry) {
      // Listed first: a server that starts in between finds the name, not yet the session, and skips it.
      await this.#admit(session)
      const key = keyOf(session, 'session')
      const expiry = this.#sessionTtlMs > 0 ? ['PX', String(this.#sessionTtlMs)] : []
      const made = await this.#send(key, ['SET', key, JSON.stringify(entry.created), 'NX', ...expiry])
      // A session its first write makes may have been made by another server first: the same session.
      if (made === null && entry.created.options !== null) throw new SessionExistsError(session)
      await this.#replicated(key)
      return
    }
    if ('ended' in entry) {
      const keys = allKeys(session)
      await this.#send(keys[0]!, ['DEL', ...keys])
      await this.#replicated(keys[0]!)
      await this.#send(SESSIONS_KEY, ['ZREM', SESSIONS_KEY, session])
      await Promise.all([this.#tallies.journals.ended(session), this.#tallies.rules.ended(session)])
    }
  }

  /**
   * Lists a session in `call-sandbox:sessions`, within the fleet's session limit: past it, the names of sessions
   * gone (expired) are forgotten first, now and then; else a `SessionLimitError`.
   */
  async #admit(session: string): Promise<void> {
    const admit = () =>
      this.#send(SESSIONS_KEY, evalOf(ADMIT, [SESSIONS_KEY], [session, Date.now(), this.#sessionLimit]))
    if ((await admit()) === 1) return
    if (Date.now() - this.#prunedAt >= PRUNED_EVERY_MS) {
      this.#prunedAt = Date.now()
      await this.sessions()
      if ((await admit()) === 1) return
    }
    throw new SessionLimitError(session, this.#sessionLimit, undefined)
  }

  /** One world's place in its session's log: what it appends and reads. */
  log(session: string): SharedLog {
    return redisLog(
      {
        send: (key, command) => this.#send(key, command),
        replicated: (key) => this.#replicated(key),
        health: () => this.health(),
        id: this.#id,
        unsent: this.#unsent,
        // The default session is the server's own world: it never expires.
        ttlMs: session === DEFAULT_SESSION ? 0 : this.#sessionTtlMs,
        tallies: this.#tallies,
        journalBytes: this.#journalBytes,
      },
      session,
    )
  }

  async close(): Promise<void> {
    await Promise.all([...this.#unsent].map((send) => send()))
    await this.#tallies.journals.settled()
    await this.#connection.close()
  }

  /** Sends a command to the node of `key` (see `#command`). */
  #send(key: string, command: Command): Promise<unknown> {
    return this.#command(() => this.#connection.send(key, command))
  }

  /** Waits for the replicas a write needs (see `RedisConnection.replicated` and `#command`). */
  #replicated(key: string): Promise<void> {
    // Asked after the write was taken: whatever fails here, Redis has the write.
    return this.#command(() => this.#connection.replicated(key), true)
  }

  /**
   * Runs a command: a failure is a `StorageUnavailableError`, and health says so until one goes through. One Redis did
   * not answer in time may still run later: what it wrote may be kept (the next read of the log brings it).
   */
  async #command<T>(command: () => Promise<T>, afterWrite = false): Promise<T> {
    try {
      const answer = await command()
      this.#error = null
      return answer
    } catch (error) {
      if (error instanceof LogMovedOn) throw error
      this.#errors++
      this.#failed(error as Error)
      const { message } = error as Error
      // The client's words when `COMMAND_QUEUE_LIMIT` commands wait (Redis stalls under load): this one was not sent.
      const reason = message === 'The queue is full' ? `${COMMAND_QUEUE_LIMIT} commands wait for its answer` : message
      const unanswered = error instanceof StoreTimeout
      throw new StorageUnavailableError(
        this.#connection.where,
        reason || 'no answer',
        unanswered,
        afterWrite && !unanswered,
      )
    }
  }

  #failed(error: Error): void {
    const message = error.message || String(error)
    if (this.#error === null) console.error(`[call-sandbox] ${this.#connection.where}: ${message}`)
    this.#error = message.length > 200 ? `${message.slice(0, 200)}…` : message
  }
}
