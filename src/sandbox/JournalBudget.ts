/** What the journals of a server's sessions may hold together by default (`--journal-bytes`): 128 MiB. */
export const DEFAULT_JOURNAL_BYTES = 128 * 1024 * 1024

/** What a budget needs of a journal: what it holds, and a way to make it give up its oldest entry. */
export interface BudgetedJournal {
  readonly bytes: number
  dropOldest(): void
}

/**
 * The bytes the request journals of a server's sessions may hold together
 * (`--journal-bytes`). When a new entry takes them past it, the journal that
 * holds the most gives up its oldest entry, then the one that holds the most
 * after that, until the total fits. So a flood on one session name spends that
 * session's own entries first, and a quieter session loses none while it
 * holds less than the flood's; when every journal holds about as much, each
 * keeps its newest share of the bound.
 *
 * @note The journals are kept in a max-heap by their bytes: a flood makes
 * every request drop an entry, and a scan of every session's journal for the
 * biggest would cost each request as many steps as there are sessions.
 *
 * @example
 * const budget = new JournalBudget(64 * 1024 * 1024)
 * const journal = new Journal(1_000, budget)
 */
export class JournalBudget {
  /** Journals that hold an entry, as a max-heap by their bytes. */
  readonly #heap: BudgetedJournal[] = []
  readonly #places = new Map<BudgetedJournal, number>()
  #bytes = 0

  constructor(readonly maxBytes: number = DEFAULT_JOURNAL_BYTES) {
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1)
      throw new TypeError(`journalBytes must be a positive integer of bytes; got ${String(maxBytes)}.`)
  }

  /** What the journals hold together, about (see `Journal.bytes`). */
  get bytes(): number {
    return this.#bytes
  }

  /** How many journals hold an entry. */
  get journals(): number {
    return this.#heap.length
  }

  /** A journal's bytes moved by `delta` (its `bytes` are the new ones): one that holds nothing leaves the heap. */
  moved(journal: BudgetedJournal, delta: number): void {
    this.#bytes += delta
    const place = this.#places.get(journal)
    if (place === undefined) {
      if (journal.bytes === 0) return
      this.#heap.push(journal)
      this.#places.set(journal, this.#heap.length - 1)
      this.#up(this.#heap.length - 1)
    } else if (journal.bytes === 0) {
      this.#remove(place)
    } else if (delta > 0) {
      this.#up(place)
    } else {
      this.#down(place)
    }
  }

  /** While the journals hold more than the bound, the one holding the most forgets its oldest entry. */
  fit(): void {
    while (this.#bytes > this.maxBytes && this.#heap.length > 0) this.#heap[0]!.dropOldest()
  }

  #remove(place: number): void {
    const last = this.#heap.pop()!
    this.#places.delete(last)
    if (place === this.#heap.length) return
    this.#places.delete(this.#heap[place]!)
    this.#put(last, place)
    this.#up(place)
    this.#down(this.#places.get(last)!)
  }

  #up(place: number): void {
    const journal = this.#heap[place]!
    while (place > 0) {
      const parent = (place - 1) >> 1
      if (this.#heap[parent]!.bytes >= journal.bytes) break
      this.#put(this.#heap[parent]!, place)
      place = parent
    }
    this.#put(journal, place)
  }

  #down(place: number): void {
    const journal = this.#heap[place]!
    const { length } = this.#heap
    for (;;) {
      const left = 2 * place + 1
      if (left >= length) break
      const right = left + 1
      const bigger = right < length && this.#heap[right]!.bytes > this.#heap[left]!.bytes ? right : left
      if (this.#heap[bigger]!.bytes <= journal.bytes) break
      this.#put(this.#heap[bigger]!, place)
      place = bigger
    }
    this.#put(journal, place)
  }

  #put(journal: BudgetedJournal, place: number): void {
    this.#heap[place] = journal
    this.#places.set(journal, place)
  }
}

const SIZE_UNITS: Record<string, number> = { '': 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 }

/**
 * A size in bytes: a number of bytes, or `512KiB`, `256MiB`, `1.5GiB`; from 1 MiB to 64 GiB.
 *
 * @example
 * parseJournalBytes('256MiB') // 268_435_456
 */
export function parseJournalBytes(size: number | string): number {
  const match = typeof size === 'string' ? /^(\d{1,12}(?:\.\d{1,6})?)\s*([kmg]ib)?$/i.exec(size.trim()) : undefined
  const bytes =
    typeof size === 'number'
      ? size
      : match
        ? Math.floor(Number(match[1]) * SIZE_UNITS[(match[2] ?? '').toLowerCase()]!)
        : NaN
  if (!Number.isSafeInteger(bytes) || bytes < 1024 ** 2 || bytes > 64 * 1024 ** 3) {
    throw new TypeError(
      `journalBytes must be a size from 1 MiB to 64 GiB, in bytes or such as 256MiB or 1GiB; got ${JSON.stringify(size)}.`,
    )
  }
  return bytes
}
