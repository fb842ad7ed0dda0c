import { randomBytes } from 'node:crypto'
import { StorageUnavailableError } from '../sandbox/domainErrors.js'
import { type LogRead, LogMovedOn, type SharedLog } from '../sandbox/StoreLog.js'
import { LogEntry, Snapshot } from '../schemas/snapshot.js'
import { COMPACTION_SLACK_BYTES } from '../sessions/Store.js'
import { APPEND, COMPACT, evalOf, keyOf, LEASE, READ, TAG_LENGTH, worldKeys } from './redisScripts.js'
import { keepSettings, recountRules, sharedFaultRules } from './redisFaultRules.js'
import { type RequestsContext, sharedRequests } from './redisRequests.js'

/** A change of the settings that loses the race to other servers this many times in a row gives up (a 503). */
const MAX_ATTEMPTS = 50

/** How long the server that took the lease to compact a log has to do it, before another may. */
const COMPACTING_MS = 30_000

/** What one session's log needs of its store. */
export interface LogContext extends RequestsContext {
  /** Waits for the replicas a write needs (see `RedisConnection.replicated`), failing as `send` does. */
  replicated(key: string): Promise<void>
  health: SharedLog['health']
  /** This server, to tell which one holds the lease on a world's timed work. */
  id: string
}

/** Where a world stands in its log: the generation, how many entries it holds, and the tag of the last. */
interface Place {
  generation: number
  position: number
  tag: string
}

/** What a world read of its log: the entries, where they end, and the order it was asked in. */
interface RedisRead extends LogRead {
  whole: boolean
  /** Where the entries start (a whole read: where the list starts, after the snapshot). */
  start: number
  end: Place
  /** Reads and appends of this world are numbered as they are sent: a read older than what the world holds is dropped. */
  ticket: number
}

/**
 * One world's place in its session's log, in Redis: what it reads and
 * appends (see `redisScripts.ts`). A plain object of functions (`Sessions`
 * spreads it into its own).
 */
export function redisLog(context: LogContext, session: string): SharedLog {
  const { send, ttlMs } = context
  const keys = worldKeys(session)
  const [head] = keys as [string]
  // No generation of the log: the world's first read is whole, and what it did before it kept its writes here (a
  // live call that rang while the server connected) is not the log's, and is undone.
  let place: Place = { generation: -1, position: 0, tag: '' }
  /** The ticket of the last read or append that set `place`. */
  let placed = 0
  let tickets = 0
  let refreshedAt = Number.NEGATIVE_INFINITY
  let snapshot: Parameters<SharedLog['compactWith']>[0] | undefined
  /** The version of the settings the world holds, and the ticket of the read or keep that brought it. */
  let settingsVersion = 0
  let settingsTicket = 0
  let applySettings: (text: string) => void = () => {}
  /** The last read found no `:session` key (see `SharedLog.sessionGone`). */
  let gone = false
  const settingsAre = (version: number, ticket: number) => {
    // A read answered after a newer keep or read of this world is stale: the next one brings what is newer.
    if (ticket < settingsTicket) return false
    settingsVersion = version
    settingsTicket = ticket
    return true
  }
  /** Runs a script of the log from where the world stands (or `at`). */
  const run = (script: string, args: ReadonlyArray<string | number>, at: Place = place) =>
    send(head, evalOf(script, keys, [at.generation, at.position, at.tag, ...args]))

  /** The TTL the keys are given again: at most every tenth of it from this server, for reads (writes always). */
  const refreshing = (always: boolean) => {
    if (ttlMs === 0 || (!always && performance.now() - refreshedAt < ttlMs / 10)) return 0
    refreshedAt = performance.now()
    return ttlMs
  }

  const compact = async () => {
    if (!snapshot) return
    const { text, at } = await snapshot((world) => ({ text: JSON.stringify(world), at: place }))
    await run(COMPACT, [refreshing(true), text], at)
  }

  return {
    shared: true,
    append: async (entry) => {
      const ticket = ++tickets
      const tag = randomBytes(6).toString('base64url')
      const reset = 'reset' in entry
      const args = [refreshing(true), tag + JSON.stringify(entry), reset ? 'reset' : 'write']
      const answer = await run(APPEND, [...args, COMPACTION_SLACK_BYTES, COMPACTING_MS])
      if (answer === -1) throw new LogMovedOn()
      const [generation, due] = answer as [number, number]
      // Answered only once the replicas have it; until then the world does not count it (Redis may: the next read
      // puts it back).
      await context.replicated(head)
      place = { generation, position: reset ? 1 : place.position + 1, tag }
      placed = ticket
      // The reset removed the session's rules in its append: the fleet's count of rules learns it. The reset is kept
      // either way, so a count that fails is not the write's failure: the session's next change of rules tells it.
      if (reset) await recountRules(context, session).catch(() => undefined)
      // Not waited for: the log is whole either way, and another server may take the lease once it lapses.
      if (due === 1) {
        compact().catch((error: Error) =>
          console.error(`[call-sandbox] compacting the log of session ${session} failed: ${error.message}`),
        )
      }
    },
    since: async () => {
      const ticket = ++tickets
      const answer = (await run(READ, [refreshing(false), settingsVersion])) as ReadAnswer
      const [generation, start, whole, texts, kept, keptTag, version, settings, made] = answer
      if (settings !== null && settingsAre(Number(version), ticket)) applySettings(settings)
      gone = made !== 1
      if (!whole && texts.length === 0) return undefined
      const entries = texts.map((text) => LogEntry.parse(JSON.parse(text.slice(TAG_LENGTH))))
      const last = texts.at(-1)?.slice(0, TAG_LENGTH) ?? (whole ? keptTag : place.tag)
      const end = { generation, position: start + texts.length, tag: last }
      const read: RedisRead = {
        whole: whole === 1,
        start,
        end,
        ticket,
        entries: kept ? [...entriesOf(Snapshot.parse(JSON.parse(kept))), ...entries] : entries,
      }
      return read
    },
    sessionGone: () => gone,
    unread: (read) => {
      const { whole, entries, start, end, ticket } = read as RedisRead
      if (ticket < placed) return undefined
      if (whole) return { whole, entries }
      if (end.generation !== place.generation) return undefined
      const unread = entries.slice(Math.max(0, place.position - start))
      return unread.length > 0 ? { whole, entries: unread } : undefined
    },
    caughtUp: (read) => {
      const { end, ticket } = read as RedisRead
      place = end
      placed = ticket
    },
    compactWith: (take) => {
      snapshot = take
    },
    health: context.health,
    holdsLease: async (ttlMs) => {
      const args = [context.id, String(Math.max(1, Math.round(ttlMs)))]
      const live = keyOf(session, 'live')
      return (await send(live, evalOf(LEASE, [live], args))) === 1
    },
    requests: sharedRequests(context, session),
    faultRules: sharedFaultRules(context, session),
    settings: {
      keep: async (text) => {
        // Kept only over the version the world holds: else it takes the newer one and works its change out again.
        for (let attempt = 1; ; attempt++) {
          const ticket = ++tickets
          const kept = await keepSettings(context, session, text(), settingsVersion)
          if (settingsAre(kept.version, ticket)) applySettings(kept.text)
          if (kept.kept) return
          if (attempt >= MAX_ATTEMPTS)
            throw new StorageUnavailableError(
              'The shared store',
              `the settings lost the race to other servers ${attempt} times`,
            )
        }
      },
      follow: (apply) => {
        applySettings = apply
      },
    },
  }
}

/**
 * `READ`'s answer: where the log stands, its entries, the snapshot (a whole read), the settings' version and JSON, and
 * whether the store knows how the session was made.
 */
type ReadAnswer = [number, number, 0 | 1, string[], string | null, string, number, string | null, 0 | 1]

/** A snapshot as log entries: back to its seed, then one write of everything it holds. */
function entriesOf({ clock_offset_ms, changes, ...world }: Snapshot): LogEntry[] {
  const { writes, inserted, changed } = changes
  return [{ reset: world }, { write: writes, changes: { inserted, changed }, clock_offset_ms }]
}
