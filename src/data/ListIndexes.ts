import { LIST_FILTERS } from '../schemas/index.js'
import { KINDS, type Kind, type StoredRecords } from '../schemas/stored.js'
import { nextTurn, SLICE_SIZE } from '../seed/slices.js'
import { KeysetIndex, positionOf, type KeysetPosition } from './KeysetIndex.js'

type AnyRecord = StoredRecords[Kind]

/**
 * Fields a list can be filtered on (`LIST_FILTERS`). Each value has a keyset
 * index of its own, so that a page of a rare status or one phone's calls is
 * as quick as an unfiltered page.
 */
const FILTERABLE = Object.fromEntries(
  KINDS.map((kind) => [kind, Object.values(LIST_FILTERS[kind]).map(({ field }) => field)]),
) as {
  [K in Kind]: Array<FilterField<K>>
}

type FilterField<K extends Kind> = (typeof LIST_FILTERS)[K][keyof (typeof LIST_FILTERS)[K]] extends { field: infer F }
  ? F & string
  : never

export type Filters<K extends Kind> = Partial<Record<FilterField<K>, string>>

export interface PageQuery<K extends Kind> {
  /** Start strictly after this position (the cursor). */
  after?: KeysetPosition
  /** Keep records whose `created_at` is strictly after this instant. */
  sinceMs?: number
  limit: number
  /** Keep records whose fields equal these values. */
  equals?: Filters<K>
}

export interface Page<T> {
  records: T[]
  hasMore: boolean
}

/**
 * The lists a list endpoint pages through, each in list order (newest
 * first): every organization's records of a kind, and those with each value
 * of each filter field. A page walks the smallest list that can answer it.
 *
 * @example
 * const lists = new ListIndexes()
 * lists.add('calls', call)
 * lists.page('calls', organizationId, { limit: 50 }, (id) => byId.get(id))
 */
export class ListIndexes {
  readonly #lists = new Map<string, KeysetIndex>()

  /**
   * The lists of records being loaded: each record `add`ed as it is loaded, then `built()` sorts each list once
   * rather than building it record by record, the event loop running between two slices of the sorting.
   *
   * @example
   * const building = ListIndexes.building()
   * for (const record of calls) building.add('calls', record)
   * const lists = await building.built()
   */
  static building(): { add(kind: Kind, record: AnyRecord): void; built(): Promise<ListIndexes> } {
    const positions = new Map<string, KeysetPosition[]>()
    return {
      add(kind, record) {
        const position = positionOf(record)
        for (const key of indexKeys(kind, record)) {
          let list = positions.get(key)
          if (!list) {
            list = []
            positions.set(key, list)
          }
          list.push(position)
        }
      },
      async built() {
        const indexes = new ListIndexes()
        let sorted = 0
        for (const [key, list] of positions) {
          // Seeded records come oldest first, as an index keeps them, so a sort is mostly a walk: a turn once the lists
          // sorted since the last one held a slice's worth of records.
          if (sorted >= SLICE_SIZE) {
            await nextTurn()
            sorted = 0
          }
          const index = new KeysetIndex()
          index.load(list)
          indexes.#lists.set(key, index)
          sorted += list.length
        }
        return indexes
      },
    }
  }

  /** Puts a record in its organization's list and in the list of each of its filter values. */
  add(kind: Kind, record: AnyRecord): void {
    const position = positionOf(record)
    for (const key of indexKeys(kind, record)) {
      let index = this.#lists.get(key)
      if (!index) {
        index = new KeysetIndex()
        this.#lists.set(key, index)
      }
      index.insert(position)
    }
  }

  /** Takes a record's current version out of every list it is in. */
  remove(kind: Kind, record: AnyRecord): void {
    const position = positionOf(record)
    for (const key of indexKeys(kind, record)) this.#lists.get(key)?.remove(position)
  }

  /** One page of an organization's records, newest first; `get` reads a record by id. */
  page<K extends Kind>(
    kind: K,
    organizationId: string,
    query: PageQuery<K>,
    get: (id: string) => StoredRecords[K],
  ): Page<StoredRecords[K]> {
    const equals = Object.entries(query.equals ?? {}).filter(([, value]) => value !== undefined) as Array<
      [string, string]
    >
    // Walk the smallest index that can answer; check the other filters per record.
    const candidates = [
      listKey(kind, organizationId),
      ...equals.map(([field, value]) => listKey(kind, organizationId, field, value)),
    ]
    const lists = candidates.map((key) => this.#lists.get(key))
    if (lists.some((list) => list === undefined)) return { records: [], hasMore: false }
    const smallest = (lists as KeysetIndex[]).reduce((a, b) => (b.size < a.size ? b : a))
    const records: StoredRecords[K][] = []
    let hasMore = false
    smallest.scan(query, (id) => {
      const record = get(id)
      if (!equals.every(([field, value]) => (record as Record<string, unknown>)[field] === value)) return true
      if (records.length === query.limit) {
        hasMore = true
        return false
      }
      records.push(record)
      return true
    })
    return { records, hasMore }
  }

  /** How many records of `kind` an organization has. */
  size(kind: Kind, organizationId: string): number {
    return this.#lists.get(listKey(kind, organizationId))?.size ?? 0
  }
}

function listKey(kind: Kind, organizationId: string, field?: string, value?: string): string {
  return field === undefined ? `${kind} ${organizationId}` : `${kind} ${organizationId} ${field}=${value}`
}

/** Every list a record belongs to: its organization's, and one per filterable field. */
function indexKeys(kind: Kind, record: AnyRecord): string[] {
  const fields: readonly string[] = FILTERABLE[kind]
  return [
    listKey(kind, record.organization_id),
    ...fields.map((field) =>
      listKey(kind, record.organization_id, field, String((record as Record<string, unknown>)[field])),
    ),
  ]
}
