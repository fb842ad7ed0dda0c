import { cutBody } from '../sandbox/Journal.js'
import type { SharedRequests } from '../sandbox/StoreLog.js'
import type { JournalEntry } from '../schemas/index.js'
import type { Command } from './redisConnection.js'
import { evalOf, JOURNAL, keyOf, RECORD } from './redisScripts.js'

/** How much of a successful answer's body the shared journal keeps (see `sharedEntry`). */
const SHARED_ANSWER_BYTES = 1024
/** How long a server gathers its requests' journal entries and usage counts before it sends them, in one batch. */
const BATCH_MS = 5

/** What a session's journal and usage need of their store. */
export interface RequestsContext {
  /** Sends a command to the node of `key`: a failure is a `StorageUnavailableError`, and the store's health says so. */
  send(key: string, command: Command): Promise<unknown>
  /** How long the session's keys live unused (0: for ever). */
  ttlMs: number
  /** The batches gathered and not sent yet: the store sends them before it closes. */
  unsent: Set<() => Promise<unknown>>
}

/** A session's journal (a list, newest first, capped) and usage counters (a hash), the same from every server. */
export function sharedRequests({ send, ttlMs, unsent }: RequestsContext, session: string): SharedRequests {
  const journal = keyOf(session, 'journal')
  const usage = keyOf(session, 'usage')
  // Requests are sent in batches, a few milliseconds apart: one round trip for many answers, not one each.
  let entries: string[] = []
  let capacity = 0
  const counts = new Map<string, number>()
  let fields: Record<string, string> = {}
  let flushing: Promise<unknown> | undefined
  const flush = () => {
    unsent.delete(flush)
    if (entries.length === 0) return Promise.resolve()
    const added = [...counts].flat()
    const args = [capacity, ttlMs, entries.length, ...entries, counts.size, ...added, ...Object.entries(fields).flat()]
    entries = []
    counts.clear()
    fields = {}
    flushing = undefined
    // Not waited for by any answer; a batch lost to a store that is down is said in the log and in health.
    return send(journal, evalOf(RECORD, [journal, usage], args)).catch(() => undefined)
  }
  const flushed = async () => {
    if (flushing) await flushing
  }
  return {
    record: (entry, size, counters) => {
      // LPUSH puts each before the last: the newest goes last.
      entries.push(JSON.stringify(sharedEntry(entry)))
      capacity = size
      if (counters) {
        for (const field of counters.add) counts.set(field, (counts.get(field) ?? 0) + 1)
        Object.assign(fields, counters.set)
      }
      if (flushing) return
      unsent.add(flush)
      flushing = new Promise((resolve) => setTimeout(resolve, BATCH_MS)).then(flush)
    },
    journal: async (limit) => {
      await flushed()
      const [texts, size] = (await send(journal, evalOf(JOURNAL, [journal], [limit]))) as [string[], number]
      return { entries: texts.map((text) => JSON.parse(text)), size }
    },
    usage: async () => {
      await flushed()
      return (await send(usage, ['HGETALL', usage])) as Record<string, string>
    },
    clear: async () => {
      await flushed()
      await send(journal, ['DEL', journal, usage])
    },
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
  return { ...entry, response: { ...answer, ...cutBody(Buffer.from(answer.body), SHARED_ANSWER_BYTES) } }
}
