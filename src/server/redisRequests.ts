import { cutBody } from '../sandbox/Journal.js'
import type { SharedRequests } from '../sandbox/StoreLog.js'
import type { JournalEntry } from '../schemas/index.js'
import type { Command } from './redisConnection.js'
import { evalOf, JOURNAL, keyOf } from './redisScripts.js'
import { type Report, SEQUENCE, Tally } from './redisTally.js'

/** How much of a successful answer's body the shared journal keeps (see `sharedEntry`). */
const SHARED_ANSWER_BYTES = 1024
/** How long a server gathers its requests' journal entries and usage counts before it sends them, in one batch. */
const BATCH_MS = 5
/**
 * What a journal entry of `length` bytes of JSON costs Redis, in bytes, as `cost(length)`: the allocator (jemalloc)
 * rounds each block up to a size class, up to a quarter more, and a list's node adds its own. An entry of 8 KiB or
 * more has a node of its own: its size class, exactly, and 48 bytes; a smaller one shares a node of 8 KiB with its
 * neighbours: a quarter more and 64 bytes at most. Measured with `MEMORY USAGE` over lists of entries of 50 B to
 * 40 KB (Redis 7.0, `bench/redis-bytes.mjs`), so that the bound on bytes is one on Redis's memory. A journal that
 * holds an entry costs 128 bytes more: its key (`MEMORY USAGE` counts about 104). `counted()` sums a journal kept
 * before its bytes were counted.
 */
const COST = `
local function cost(length)
  if length < 8192 then return length + math.ceil(length / 4) + 64 end
  local spacing, block = 1, length + 16
  while spacing * 8 < block do spacing = spacing * 2 end
  return math.ceil(block / spacing) * spacing + 48
end
local function counted()
  local bytes = tonumber(redis.call('HGET', KEYS[2], 'journal_bytes') or '-1')
  if bytes >= 0 then return bytes end
  bytes = 0
  for _, entry in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do bytes = bytes + cost(#entry) end
  if bytes > 0 then bytes = bytes + 128 end
  return bytes
end
`
/** A target no journal reaches: asked with it, a journal is measured, not cut. */
const NO_CUT = Number.MAX_SAFE_INTEGER

/**
 * Keeps a batch of requests: ARGV[4] journal entries (the newest last), from ARGV[5]; then a count of usage counters
 * to add one to, those counters and their increments; then fields to set, with their values. The journal keeps its
 * newest ARGV[1] entries, within ARGV[3] bytes (each its `cost`: `journal_bytes` of `:usage`, counted again for a
 * journal kept before they were). ARGV[2] is the TTL the two keys are given again (0: leave them).
 * Answers the bytes the journal holds and the sequence number of this change (see `Tally`).
 */
const RECORD = `${SEQUENCE}${COST}
local bytes = counted()
local at = 5
local entries = tonumber(ARGV[4])
if entries > 0 and bytes == 0 then bytes = 128 end
for i = at, at + entries - 1 do
  redis.call('LPUSH', KEYS[1], ARGV[i])
  bytes = bytes + cost(#ARGV[i])
end
local length = redis.call('LLEN', KEYS[1])
while length > 1 and (length > tonumber(ARGV[1]) or bytes > tonumber(ARGV[3])) do
  bytes = bytes - cost(#redis.call('RPOP', KEYS[1]))
  length = length - 1
end
at = at + entries
local added = tonumber(ARGV[at])
at = at + 1
for i = at, at + 2 * added - 1, 2 do redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i + 1]) end
at = at + 2 * added
for i = at, #ARGV - 1, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
redis.call('HSET', KEYS[2], 'journal_bytes', string.format('%.0f', bytes))
local seq = sequence(2, 'journal_seq', true)
if tonumber(ARGV[2]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
end
return {bytes, seq}
`

/**
 * Drops a journal's oldest entries until it holds at most ARGV[1] bytes (each its `cost`): answers the
 * bytes it holds and the sequence number of this change. A journal gone (expired, ended, forgotten) holds nothing.
 */
const CUT = `${SEQUENCE}${COST}
if redis.call('EXISTS', KEYS[1]) == 0 then return {0, sequence(2, 'journal_seq', false)} end
local bytes = counted()
local ttl = redis.call('PTTL', KEYS[1])
while bytes > tonumber(ARGV[1]) and redis.call('LLEN', KEYS[1]) > 0 do
  bytes = bytes - cost(#redis.call('RPOP', KEYS[1]))
end
if redis.call('LLEN', KEYS[1]) == 0 then bytes = 0 end
redis.call('HSET', KEYS[2], 'journal_bytes', string.format('%.0f', bytes))
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return {bytes, sequence(2, 'journal_seq', true)}
`

/** What a session's journal and usage need of their store. */
export interface RequestsContext {
  /** Sends a command to the node of `key`: a failure is a `StorageUnavailableError`, and the store's health says so. */
  send(key: string, command: Command): Promise<unknown>
  /** How long the session's keys live unused (0: for ever). */
  ttlMs: number
  /** The batches gathered and not sent yet: the store sends them before it closes. */
  unsent: Set<() => Promise<unknown>>
  /** What the fleet's sessions hold together: their journals' bytes, their fault rules. */
  tallies: { journals: Tally; rules: Tally }
  /** The bytes the journals of the fleet's sessions may hold in Redis together (`--journal-bytes`). */
  journalBytes: number
}

/**
 * The tally of the journals' bytes in Redis (see `Tally`).
 *
 * @example
 * const journals = journalTally(context)
 */
export function journalTally(context: Pick<RequestsContext, 'send' | 'ttlMs'>): Tally {
  return new Tally('journals', context, (session) => cutJournal(context, session, NO_CUT))
}

/** Cuts a session's journal to `bytes`: its report. */
async function cutJournal({ send }: Pick<RequestsContext, 'send'>, session: string, bytes: number): Promise<Report> {
  const keys = [keyOf(session, 'journal'), keyOf(session, 'usage')]
  const [held, sequence] = (await send(keys[0]!, evalOf(CUT, keys, [bytes]))) as [number, string]
  return [session, Number(held), String(sequence)]
}

/** A session's journal (a list, newest first, capped) and usage counters (a hash), the same from every server. */
export function sharedRequests(context: RequestsContext, session: string): SharedRequests {
  const { send, ttlMs, unsent, tallies, journalBytes } = context
  const journal = keyOf(session, 'journal')
  const usage = keyOf(session, 'usage')
  // Requests are sent in batches, a few milliseconds apart: one round trip for many answers, not one each.
  let entries: string[] = []
  let capacity = 0
  const counts = new Map<string, number>()
  let fields: Record<string, string> = {}
  let flushing: Promise<unknown> | undefined
  /** The batches sent and not answered yet: a read waits for them. */
  const sending = new Set<Promise<unknown>>()
  const flush = () => {
    unsent.delete(flush)
    if (entries.length === 0) return Promise.resolve()
    const added = [...counts].flat()
    const limits = [capacity, ttlMs, journalBytes]
    const args = [...limits, entries.length, ...entries, counts.size, ...added, ...Object.entries(fields).flat()]
    entries = []
    counts.clear()
    fields = {}
    flushing = undefined
    // Not waited for by any answer; a batch lost to a store that is down is said in the log and in health.
    const sent: Promise<unknown> = send(journal, evalOf(RECORD, [journal, usage], args))
      .then((answer) => {
        const [bytes, sequence] = answer as [number, string]
        // Not waited for by a read of the journal: the fleet's total, not this journal, is what it changes.
        fitJournals([session, Number(bytes), String(sequence)]).catch(() => undefined)
      })
      .catch(() => undefined)
      .finally(() => sending.delete(sent))
    sending.add(sent)
    return sent
  }
  // The fleet's journals, past their bytes together, cut down from the biggest (in the background, as the batch).
  const fitJournals = (report: Report) =>
    tallies.journals.fitSoon(report, journalBytes, (other, bytes) => cutJournal(context, other, bytes))
  const flushed = async () => {
    if (flushing) await flushing
    await Promise.all(sending)
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
      await tallies.journals.ended(session)
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
