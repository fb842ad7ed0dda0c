import { randomUUID } from 'node:crypto'
import { createClient } from '@redis/client'
import { keptBody } from '../sandbox/Journal.js'
import type { LogRead, SharedRequests } from '../sandbox/WorldStore.js'
import { LogMovedOn } from '../sandbox/WorldStore.js'
import { SessionExistsError, StorageUnavailableError } from '../schemas/domainErrors.js'
import type { JournalEntry, StoreHealth } from '../schemas/index.js'
import { LogEntry, SessionOptions, type WorldOf } from '../schemas/snapshot.js'
import type { KeptSession, SharedLog, Store, StoreEntry } from '../sessions/Store.js'

/*
 * `--store redis://host:port[/db]`: every session's log in Redis, so that any
 * number of servers given the same store are one sandbox.
 *
 * Per session, two keys hash-tagged by the session's name (so a Redis Cluster
 * keeps a session's keys on one shard, and each script touches one shard):
 * `call-sandbox:{name}:log`, a list of log entries, and
 * `call-sandbox:{name}:generation`, which a reset (or the session's end)
 * moves on when it starts the list over. A server holds a world at a place
 * in its log (generation, position); before every answer it reads what is
 * after that place (one round trip), and it appends only where it stands:
 * a server that lost the race reads what won, and runs its write again.
 */

const PREFIX = 'call-sandbox:'
/** How much of a successful answer's body the shared journal keeps (see `sharedEntry`). */
const SHARED_ANSWER_BYTES = 1024
/** How long a server gathers its requests' journal entries and usage counts before it sends them, in one batch. */
const BATCH_MS = 5

/** What is after (generation, position): the whole list when the generation moved on. */
const READ_SINCE = `
local generation = tonumber(redis.call('GET', KEYS[1]) or '0')
if generation ~= tonumber(ARGV[1]) then
  return {generation, 0, redis.call('LRANGE', KEYS[2], 0, -1)}
end
local length = redis.call('LLEN', KEYS[2])
if length <= tonumber(ARGV[2]) then return {generation, length, {}} end
return {generation, tonumber(ARGV[2]), redis.call('LRANGE', KEYS[2], ARGV[2], -1)}
`

/** Appends where the writer stands, or answers -1; a reset starts the list over, in the next generation. */
const APPEND = `
local generation = tonumber(redis.call('GET', KEYS[1]) or '0')
if generation ~= tonumber(ARGV[1]) or redis.call('LLEN', KEYS[2]) ~= tonumber(ARGV[2]) then return -1 end
if ARGV[4] == 'reset' then
  redis.call('DEL', KEYS[2])
  generation = redis.call('INCR', KEYS[1])
end
redis.call('RPUSH', KEYS[2], ARGV[3])
return generation
`

/** A session's end: its log gone, its generation moved on (a server holding it starts over from the seed). */
const END = `
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
return redis.call('INCR', KEYS[1])
`

/** Takes or keeps the lead of a world's timed work: free, or already this server's. */
const LEAD = `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`

type Client = ReturnType<typeof createRedisClient>

/**
 * The Redis store of a fleet of servers.
 *
 * @example
 * const store = await RedisStore.open('redis://127.0.0.1:6379', worldOf(sandbox))
 */
export class RedisStore implements Store {
  readonly #client: Client
  readonly #where: string
  /** This server, to tell which one leads a world's timed work. */
  readonly #id = randomUUID()
  #error: string | null = null
  #errors = 0

  private constructor(client: Client, where: string) {
    this.#client = client
    this.#where = where
  }

  /**
   * Connects, and checks that the store belongs to this world (the same seed,
   * seed instant, clock and organizations as the servers before): a store
   * used for the first time takes this world.
   */
  static async open(url: string, world: Omit<WorldOf, 'scenario'>): Promise<RedisStore> {
    const parsed = new URL(url)
    const where = `Redis at ${parsed.host}${parsed.pathname.length > 1 ? parsed.pathname : ''}`
    const client = createRedisClient(url)
    const store = new RedisStore(client, where)
    client.on('error', (error: Error) => store.#failed(error))
    client.on('ready', () => {
      store.#error = null
    })
    try {
      await client.connect()
      const text = JSON.stringify(world)
      await client.set(`${PREFIX}world`, text, { condition: 'NX' })
      const held = await client.get(`${PREFIX}world`)
      if (held !== text) {
        throw new Error(
          `${where} holds another world (${held}): start every server with the same --seed, --now, --organizations and --calls, or give this one another store.`,
        )
      }
    } catch (error) {
      client.destroy()
      throw error
    }
    return store
  }

  /** How many commands Redis did not answer since the server started. */
  get errors(): number {
    return this.#errors
  }

  health(): StoreHealth {
    return { kind: 'redis', state: this.#error === null ? 'ok' : 'unavailable', error: this.#error }
  }

  /** Every named session the store knows, each to be read from its log at its first request. */
  async sessions(): Promise<KeptSession[]> {
    const all = await this.#command(() => this.#client.hGetAll(`${PREFIX}sessions`))
    return Object.entries(all).map(([name, text]) => {
      const { created_at, options } = JSON.parse(text) as { created_at: string; options: SessionOptions }
      return { name, created_at, options: SessionOptions.parse(options), snapshot: null, entries: [] }
    })
  }

  async session(name: string): Promise<KeptSession | undefined> {
    const text = await this.#command(() => this.#client.hGet(`${PREFIX}sessions`, name))
    if (text === null || text === undefined) return undefined
    const { created_at, options } = JSON.parse(text) as { created_at: string; options: SessionOptions }
    return { name, created_at, options: SessionOptions.parse(options), snapshot: null, entries: [] }
  }

  async append(session: string, entry: StoreEntry): Promise<void> {
    if ('created' in entry) {
      const made = await this.#command(() =>
        this.#client.hSetNX(`${PREFIX}sessions`, session, JSON.stringify(entry.created)),
      )
      // A session its first write makes may have been made by another server first: the same session.
      if (!made && entry.created.options !== null) throw new SessionExistsError(session)
      return
    }
    if ('ended' in entry) {
      const keys = [...keysOf(session), keyOf(session, 'journal'), keyOf(session, 'usage')]
      await this.#command(() => this.#client.eval(END, { keys, arguments: [] }))
      await this.#command(() => this.#client.hDel(`${PREFIX}sessions`, session))
      return
    }
    throw new Error(`A world's entries go to its log (RedisStore.log), not to append: ${JSON.stringify(entry)}.`)
  }

  /** One world's place in its session's log: what it appends and reads. */
  log(session: string): SharedLog {
    const keys = keysOf(session)
    let generation = 0
    let position = 0
    return {
      append: async (entry) => {
        const reset = 'reset' in entry ? 'reset' : 'write'
        const args = [String(generation), String(position), JSON.stringify(entry), reset]
        const answered = Number(await this.#command(() => this.#client.eval(APPEND, { keys, arguments: args })))
        if (answered === -1) throw new LogMovedOn()
        if (reset === 'reset') {
          generation = answered
          position = 1
        } else position++
      },
      since: async () => {
        const args = [String(generation), String(position)]
        const [read, start, texts] = (await this.#command(() =>
          this.#client.eval(READ_SINCE, { keys, arguments: args }),
        )) as [number, number, string[]]
        if (read === generation && texts.length === 0) return undefined
        return { generation: read, start, entries: texts.map((text) => LogEntry.parse(JSON.parse(text))) }
      },
      caughtUp: (read: LogRead) => {
        generation = read.generation
        position = read.start + read.entries.length
      },
      place: () => ({ generation, position }),
      health: () => this.health(),
      leads: async (ttlMs) => {
        const args = [this.#id, String(Math.max(1, Math.round(ttlMs)))]
        return (
          (await this.#command(() => this.#client.eval(LEAD, { keys: [keyOf(session, 'live')], arguments: args }))) ===
          1
        )
      },
      requests: this.#requests(session),
    }
  }

  /** A session's journal (a list, newest first, capped) and usage counters (a hash), the same from every server. */
  #requests(session: string): SharedRequests {
    const journal = keyOf(session, 'journal')
    const usage = keyOf(session, 'usage')
    // Requests are sent in batches, a few milliseconds apart: one round trip for many answers, not one each.
    let entries: string[] = []
    let capacity = 0
    const counts = new Map<string, number>()
    let fields: Record<string, string> = {}
    let flushing: Promise<unknown> | undefined
    const flush = () => {
      const batch = this.#client.multi()
      if (entries.length > 0) batch.lPush(journal, entries).lTrim(journal, 0, capacity - 1)
      for (const [field, count] of counts) batch.hIncrBy(usage, field, count)
      if (Object.keys(fields).length > 0) batch.hSet(usage, fields)
      entries = []
      counts.clear()
      fields = {}
      flushing = undefined
      // Not waited for by any answer; a batch lost to a store that is down is said in the log and in health.
      return this.#command(() => batch.exec()).catch(() => undefined)
    }
    const flushed = async () => {
      if (flushing) await flushing
    }
    return {
      record: (entry, size, counters) => {
        // LPUSH of several puts the last one first: the newest goes last.
        entries.push(JSON.stringify(sharedEntry(entry)))
        capacity = size
        if (counters) {
          for (const field of counters.add) counts.set(field, (counts.get(field) ?? 0) + 1)
          Object.assign(fields, counters.set)
        }
        flushing ??= new Promise((resolve) => setTimeout(resolve, BATCH_MS)).then(flush)
      },
      journal: async (limit) => {
        await flushed()
        const [texts, size] = (await this.#command(() =>
          this.#client
            .multi()
            .lRange(journal, 0, limit - 1)
            .lLen(journal)
            .exec(),
        )) as unknown as [string[], number]
        return { entries: texts.map((text) => JSON.parse(text)), size }
      },
      usage: async () => {
        await flushed()
        return this.#command(() => this.#client.hGetAll(usage))
      },
      clear: async () => {
        await flushed()
        await this.#command(() => this.#client.del([journal, usage]))
      },
    }
  }

  async close(): Promise<void> {
    await this.#client.close().catch(() => this.#client.destroy())
  }

  /** Runs a command: a failure is a `StorageUnavailableError`, and health says so until one goes through. */
  async #command<T>(command: () => Promise<T>): Promise<T> {
    try {
      const answer = await command()
      this.#error = null
      return answer
    } catch (error) {
      if (error instanceof LogMovedOn) throw error
      this.#errors++
      this.#failed(error as Error)
      throw new StorageUnavailableError(this.#where, (error as Error).message || 'no answer')
    }
  }

  #failed(error: Error): void {
    const message = error.message || String(error)
    if (this.#error === null) console.error(`[call-sandbox] ${this.#where}: ${message}`)
    this.#error = message.length > 200 ? `${message.slice(0, 200)}…` : message
  }
}

/**
 * An entry as the shared journal keeps it: a successful answer's body cut at
 * 1 KiB; what was sent, and an error's answer, kept as in memory (4 KiB).
 * Every entry sent to Redis goes to its append-only file, which a durable
 * Redis syncs to disk before it answers anyone, reads included: with 4 KiB
 * of a page of calls in each entry, a read over Redis took 1.25x to 1.35x
 * the time of a read with no store; with 1 KiB, 1.1x (`bench/store.mjs`).
 */
function sharedEntry(entry: JournalEntry): JournalEntry {
  const answer = entry.response
  if (entry.status >= 400 || !answer?.body || Buffer.byteLength(answer.body) <= SHARED_ANSWER_BYTES) return entry
  return { ...entry, response: { ...answer, ...keptBody(Buffer.from(answer.body), SHARED_ANSWER_BYTES) } }
}

function createRedisClient(url: string) {
  return createClient({
    url,
    // A command while the connection is down fails at once (a 503), rather than waiting in a queue.
    disableOfflineQueue: true,
    socket: { connectTimeout: 2_000, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1_000) },
  })
}

function keysOf(session: string): string[] {
  return [keyOf(session, 'generation'), keyOf(session, 'log')]
}

/** A key of a session's, hash-tagged by its name: a Redis Cluster keeps a session's keys on one shard. */
function keyOf(session: string, what: string): string {
  return `${PREFIX}{${session}}:${what}`
}
