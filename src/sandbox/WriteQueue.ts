import type { Faker } from '@faker-js/faker'
import type { Database } from '../data/Database.js'
import type { SeedIdentity } from '../schemas/snapshot.js'
import type { DatabaseChanges } from '../schemas/stored.js'
import { createFaker } from '../seed/random.js'
import { StorageUnavailableError } from './domainErrors.js'
import { LogMovedOn } from './StoreLog.js'

/** Writes that lose the race to another server this many times in a row give up (a 503, as the store's error). */
const MAX_ATTEMPTS = 50

/** The records as everyone but a write sees them: to read, never to change. */
export type Records = Pick<
  Database,
  | 'get'
  | 'page'
  | 'count'
  | 'all'
  | 'messages'
  | 'contactByPhone'
  | 'pendingEndings'
  | 'changed'
  | 'changes'
  | 'revision'
>

/** What a write is handed: the records to change, and the random stream of its own number. */
export interface Write {
  db: Database
  faker: Faker
  /** Puts another database in place of this one (a scenario seeded anew): what later writes get. */
  replace(db: Database): void
  /**
   * Sets the number of writes since the seed instead of taking one: a reset starts over, a restore goes on from the
   * saved count.
   */
  setCount(count: number): void
}

export interface WriteOptions<T> {
  /** Whether the write takes a number (default true). */
  counted?: boolean
  /** Whether the listeners hear of it (default: always). */
  changed?(value: T): boolean
  /**
   * What the store keeps of it: `records` (the default), what it inserted and changed, when it wrote any; `nothing` (a
   * world being put back from its store); or an entry of its own (a reset, a clock moved).
   */
  kept?: 'records' | 'nothing' | (() => Kept)
}

/**
 * What a store is handed of one write: the records it wrote, or what a reset or a clock move was (`offset`: where the
 * clock moves to, from its base as `WorldLog.clockOffset` counts, kept before the write sets it; else the clock as it
 * stands).
 */
export type Kept =
  | { write: number; changes: DatabaseChanges }
  | { reset: SeedIdentity }
  | { clock: true; offset?: number }

/** Where a world's writes go before they count: resolves once the store has one, rejects when it refuses. */
export type KeepWrite = (kept: Kept) => Promise<void>

/**
 * The only way to change a world's records. Writes run one at a time, so a
 * check and the write it guards (a phone not yet taken, then the contact)
 * never interleave with another. Each write draws from a random stream of
 * its own number since the seed, so the ids it makes do not depend on how
 * much was drawn before it: a world restored from its writes goes on where
 * the earlier one was. A write is all or nothing: one that throws leaves no
 * record changed and takes no number.
 *
 * @example
 * const queue = new WriteQueue(seed, db, db.load(world), notify)
 * await queue.write(async ({ db, faker }) => db.insert('contacts', contactOf(faker)))
 */
export class WriteQueue {
  #db: Database
  /** Writes since the seed; the next write draws from stream `write <count + 1>`. */
  #count = 0
  #tail: Promise<unknown>
  #keep: KeepWrite | undefined
  #catchUp: (() => Promise<void>) | undefined
  #running = false

  /**
   * @param ready Resolves once `db` holds the seeded world: the first write waits for it.
   * @param notify Called after each write that changed something.
   */
  constructor(
    private readonly seed: number,
    db: Database,
    ready: Promise<void>,
    private readonly notify: () => void,
  ) {
    this.#db = db
    this.#tail = ready
  }

  /** The records, to read. */
  get records(): Records {
    return this.#db
  }

  /** How many writes there were since the seed (or since what a reset or a restore set). */
  get count(): number {
    return this.#count
  }

  /** Whether a write is running now. */
  get running(): boolean {
    return this.#running
  }

  /**
   * From now on, every write goes to `keep` before it counts (a store; see `Sandbox.keepWritesIn`). A write `keep`
   * refuses with `LogMovedOn` (another server wrote first) is undone, `catchUp` puts back what the other wrote, and the
   * write runs again, against the world as it now is.
   */
  keepIn(keep: KeepWrite, catchUp?: () => Promise<void>): void {
    this.#keep = keep
    this.#catchUp = catchUp
  }

  /** Resolves once every write queued so far has run. */
  async idle(): Promise<void> {
    await this.#tail
  }

  /**
   * Queues a write; resolves with what it returns, or rejects with what it
   * threw once every record it wrote is back as it was.
   */
  async write<T>(write: (context: Write) => Promise<T>, options: WriteOptions<T> = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#run(write, options)
      } catch (error) {
        if (!(error instanceof LogMovedOn) || !this.#catchUp) throw error
        if (attempt >= MAX_ATTEMPTS) {
          throw new StorageUnavailableError(
            'The shared store',
            `the write lost the race to other servers ${attempt} times`,
          )
        }
        await this.#catchUp()
      }
    }
  }

  #run<T>(
    write: (context: Write) => Promise<T>,
    { counted = true, changed = () => true, kept = 'records' }: WriteOptions<T>,
  ): Promise<T> {
    const result = this.#tail.then(async () => {
      // Made when the write draws from it: a write put back from its store draws nothing.
      let faker: Faker | undefined
      const stream = `write ${this.#count + 1}`
      const fakerOf = () => (faker ??= createFaker(this.seed, stream))
      let db = this.#db
      let count = counted ? this.#count + 1 : this.#count
      // The store has the write before it counts; one it refuses is undone by the transaction, like any failure.
      const keep = kept === 'nothing' ? undefined : this.#keep
      // A reset or a clock move is kept before it is done: a reset cannot be undone, and needs nothing it makes.
      const commit =
        keep && kept === 'records'
          ? async (changes: DatabaseChanges) => {
              if (changes.inserted.length > 0 || changes.changed.length > 0) await keep({ write: count, changes })
            }
          : undefined
      this.#running = true
      try {
        if (keep && typeof kept === 'function') await keep(kept())
        const value = await db.transaction(
          () =>
            write({
              // The database a reset put in place, for what the same write does after it.
              get db() {
                return db
              },
              get faker() {
                return fakerOf()
              },
              replace: (next) => {
                db = next
              },
              setCount: (next) => {
                count = next
              },
            }),
          commit,
        )
        // Only a write that went through takes effect.
        this.#db = db
        this.#count = count
        if (changed(value)) this.notify()
        return value
      } finally {
        this.#running = false
      }
    })
    this.#tail = result.catch(() => undefined)
    return result
  }
}
