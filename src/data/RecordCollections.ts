import { Collection } from '@msw/data'
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { byKind, type Kind, type StoredRecords } from '../schemas/stored.js'

/*
 * The one seam between the sandbox and `@msw/data`, its record store. The
 * sandbox answers reads from its own indexes (`Database`, `ListIndexes`):
 * `@msw/data` scans a collection to find a record, applies `take` before
 * `orderBy`, and copies every record it hands out. What it does store, it
 * stores through here, and each way around it is written down once:
 *
 * - a schema that checks nothing (`checkedBeforehand`): `Database` checks
 *   every record against its kind's zod schema before it gets here;
 * - a record keyed by its own id (`keyedById`), found with a probe for a
 *   symbol `@msw/data` does not export (`collectionKey`);
 * - loaded records and those written since in collections of their own
 *   (`RecordCollections`), so no write and no rollback walks the loaded ones.
 */

/**
 * @note Typed at this seam: inside, a record is any kind's, and `@msw/data`'s
 * record type (with its hidden symbols) is not spelled out.
 */
// biome-ignore lint/suspicious/noExplicitAny: the note above; a schema of unknown would refuse every kind's records.
type AnyCollection = Collection<StandardSchemaV1<any>>
type AnyRecord = StoredRecords[Kind]

/**
 * The records of a world in `@msw/data`: those loaded, never written to
 * after the load, and the new versions written since (inserted records, and
 * changed versions of loaded ones, the loaded version left as it was).
 *
 * @note A loaded collection is never written to, because `@msw/data` walks a
 * collection to find the record to update or delete (about 30 ms a record at
 * 100,000 calls); dropping the written collections undoes every write at once.
 */
export class RecordCollections {
  #loaded = createCollections()
  #written = createCollections()
  /** Ids of the records whose current version is in `#written`. */
  #writtenIds = byKind(() => new Set<string>())

  /** Empties both: a load starts over. */
  clear(): void {
    this.#loaded = createCollections()
    this.dropWritten()
  }

  /** Forgets every version written since the load. */
  dropWritten(): void {
    this.#written = createCollections()
    this.#writtenIds = byKind(() => new Set())
  }

  /** Stores the loaded records of a kind. */
  async load<R extends AnyRecord>(kind: Kind, records: R[]): Promise<R[]> {
    const key = await collectionKey()
    const collection = this.#loaded[kind]
    return Promise.all(records.map((record) => collection.create(keyedById(key, record)) as Promise<R>))
  }

  /** Whether a record's current version was written since the load (inserted, or a loaded one changed). */
  isWritten(kind: Kind, id: string): boolean {
    return this.#writtenIds[kind].has(id)
  }

  /** Stores `next` as a record's written version: over `current` when that is the written one, else beside it. */
  async write<R extends AnyRecord>(kind: Kind, next: R, current?: R): Promise<R> {
    const stored =
      current !== undefined && this.isWritten(kind, next.id)
        ? await this.#written[kind].update(current, {
            data: (draft: AnyRecord) => void Object.assign(draft, next),
            strict: true,
          })
        : await this.#written[kind].create(keyedById(await collectionKey(), next))
    this.#writtenIds[kind].add(next.id)
    return stored as R
  }

  /** Drops a record's written version: the loaded one, if any, is its current version again. */
  unwrite(kind: Kind, record: AnyRecord): void {
    this.#written[kind].delete(record)
    this.#writtenIds[kind].delete(record.id)
  }
}

function createCollections(): Record<Kind, AnyCollection> {
  return byKind(() => new Collection({ schema: checkedBeforehand() }))
}

/**
 * The collections' schema: it lets every record through, because the
 * database checks a record against its kind's zod schema before it hands it
 * over (`insert`, `update`), and the test suite checks every seeded record.
 *
 * @note `@msw/data` validates on every `create`; with the full schemas a
 * 100,000-call world took a second longer to load, for records a test checks.
 */
function checkedBeforehand<T>(): StandardSchemaV1<T> {
  return { '~standard': { version: 1, vendor: 'call-sandbox', validate: (value) => ({ value: value as T }) } }
}

let collectionKeyFound: Promise<symbol | undefined> | undefined

/**
 * The symbol under which `@msw/data` keeps a record's key, found once on a
 * record of a collection of its own (`@msw/data` does not export it); none
 * when a later version keeps it otherwise.
 */
function collectionKey(): Promise<symbol | undefined> {
  collectionKeyFound ??= new Collection({ schema: checkedBeforehand<object>() })
    .create({})
    .then((probe) => Object.getOwnPropertySymbols(probe).find((symbol) => symbol.description === 'kPrimaryKey'))
  return collectionKeyFound
}

/**
 * A copy of `record` to create in a collection, keyed by the record's id.
 *
 * @note `@msw/data` keys a record with the key its values carry, or else with
 * `crypto.randomUUID()`, which Node joins from 21 pieces: a string of 21
 * links, about 490 bytes where the same flat string takes 66. That was 110 MB
 * of a 100,000-call world's 470 MB heap. A record's id is flat, and as unique
 * within its collection.
 */
function keyedById<R extends AnyRecord>(key: symbol | undefined, record: R): R {
  return key === undefined ? { ...record } : { ...record, [key]: record.id }
}
