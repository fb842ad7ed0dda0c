import { randomUUID } from 'node:crypto'
import type { Command } from './redisConnection.js'
import { evalOf, PREFIX } from './redisScripts.js'

/*
 * What the sessions of a fleet hold together in Redis, for the limits that
 * hold in memory per server to hold across the fleet: the journals' bytes
 * (`--journal-bytes`) and the named sessions' fault rules
 * (`MAX_FAULT_RULES_IN_SERVER`). A session's keys may sit on any node of a
 * Cluster, and a script names the keys of one node only: so each session's
 * script says how much the session holds once it has changed it, with a
 * sequence number (see `SEQUENCE`), and a tally on a slot of its own
 * (`call-sandbox:{~journals}:…`, `call-sandbox:{~rules}:…`; `~` is in no
 * session's name) keeps the newest figure of each session and their total.
 * A figure older than the one kept is dropped, so the tally is the sum of
 * what the sessions last said, whatever order the reports arrive in.
 *
 * The tally's keys: `:amounts`, a sorted set of the sessions that hold
 * something, by how much; `:seq`, a hash of each session's last sequence
 * number, and `~total`; `:seen`, when each was last reported (a session
 * whose keys expired says nothing more: one not heard of for its TTL is
 * asked again); `:gone`, when each went to nothing (its sequence number is
 * kept a minute against late reports); `:reserved`, the rules being added,
 * each until it is reported or its reservation runs out.
 */

/**
 * A Lua function for a session's script: the next sequence number of the field `field` of the hash KEYS[hash], as a
 * string: Redis's clock in microseconds, past the last one given. A session's scripts run one at a time on its node,
 * so their numbers come in the order they ran, also after its keys expired and were made again.
 */
export const SEQUENCE = `
local function sequence(hash, field, keep)
  local time = redis.call('TIME')
  local number = tonumber(time[1]) * 1000000 + tonumber(time[2])
  local last = tonumber(redis.call('HGET', KEYS[hash], field) or '0')
  if number <= last then number = last + 1 end
  local text = string.format('%.0f', number)
  if keep then redis.call('HSET', KEYS[hash], field, text) end
  return text
end
`

/** How long a session's figure of nothing keeps its sequence number, against a report sent before it that comes late. */
const GONE_KEPT_MS = 60_000
/** How long a rule being added holds its place in the total: a server that stopped in between gives it back so. */
const RESERVED_MS = 30_000
/**
 * How long a server gathers its sessions' reports before it sends them, in one fit: the journals of a server's
 * sessions each report a batch every few milliseconds, and a write per report, all on the tally's one node, would
 * add about one write to Redis for every two requests a fleet answers.
 */
const GATHER_MS = 25

/**
 * Puts the reports in ARGV (from ARGV[6], each a session, its amount and its sequence number; ARGV[4] of them) in the
 * tally, ARGV[2] being the time (ms); sets `total` and `stale` (at most 8 sessions not reported for ARGV[3] ms, 0 for
 * no TTL: to be asked how much they hold).
 */
const APPLY = `
local now = tonumber(ARGV[2])
local total = tonumber(redis.call('HGET', KEYS[2], '~total') or '0')
local at = 6
for _ = 1, tonumber(ARGV[4]) do
  local name, amount, seq = ARGV[at], tonumber(ARGV[at + 1]), ARGV[at + 2]
  at = at + 3
  local known = redis.call('HGET', KEYS[2], name)
  if not known or tonumber(seq) > tonumber(known) then
    total = total - tonumber(redis.call('ZSCORE', KEYS[1], name) or '0') + amount
    redis.call('HSET', KEYS[2], name, seq)
    if amount > 0 then
      redis.call('ZADD', KEYS[1], amount, name)
      redis.call('ZADD', KEYS[3], now, name)
      redis.call('ZREM', KEYS[4], name)
    else
      redis.call('ZREM', KEYS[1], name)
      redis.call('ZREM', KEYS[3], name)
      redis.call('ZADD', KEYS[4], now, name)
    end
  end
end
for _, name in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now - ${GONE_KEPT_MS}, 'LIMIT', 0, 16)) do
  redis.call('ZREM', KEYS[4], name)
  redis.call('HDEL', KEYS[2], name)
end
redis.call('HSET', KEYS[2], '~total', string.format('%.0f', total))
local stale = {}
if tonumber(ARGV[3]) > 0 then
  stale = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[3]), 'LIMIT', 0, 8)
end
`

/**
 * Takes reports, then, while the total is past ARGV[1], has the biggest amounts give up as much as it is past, as
 * the journals of one server do in memory (`JournalBudget`): cut to one level, the biggest first. Answers the
 * sessions to cut, each with the amount to cut it to (taken as done, until it reports), and the stale ones.
 */
const FIT = `${APPLY}
local excess = total - tonumber(ARGV[1])
local cuts = {}
if excess > 0 then
  local top = redis.call('ZREVRANGE', KEYS[1], 0, 15, 'WITHSCORES')
  local held, count, level = 0, #top / 2, 0
  for k = 1, #top / 2 do
    held = held + tonumber(top[2 * k])
    local below = tonumber(top[2 * k + 2] or '0')
    if held - k * below >= excess then
      count, level = k, math.floor((held - excess) / k)
      break
    end
  end
  for k = 1, count do
    local name, amount = top[2 * k - 1], tonumber(top[2 * k])
    if amount > level then
      total = total - amount + level
      if level > 0 then redis.call('ZADD', KEYS[1], level, name) else redis.call('ZREM', KEYS[1], name) end
      table.insert(cuts, name)
      table.insert(cuts, level)
    end
  end
  redis.call('HSET', KEYS[2], '~total', string.format('%.0f', total))
end
return {cuts, stale}
`

/**
 * Takes reports, then holds a place for one more (ARGV[5], a token) unless the total and the places held reach
 * ARGV[1]: {1 or 0, the stale sessions}. Without a token (''), gives back none and takes reports only; with a token
 * and no limit (ARGV[1] is -1), gives back the place of that token.
 */
const RESERVE = `${APPLY}
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now)
if ARGV[5] == '' then return {1, stale} end
if tonumber(ARGV[1]) < 0 then
  redis.call('ZREM', KEYS[5], ARGV[5])
  return {1, stale}
end
if total + redis.call('ZCARD', KEYS[5]) >= tonumber(ARGV[1]) then return {0, stale} end
redis.call('ZADD', KEYS[5], now + ${RESERVED_MS}, ARGV[5])
return {1, stale}
`

/** One session's figure: its name, how much it holds, and the sequence number its script gave it. */
export type Report = [session: string, amount: number, sequence: string]

/** What a tally needs of its store. */
export interface TallyContext {
  send(key: string, command: Command): Promise<unknown>
  /** How long a session's keys live unused (0: for ever): one not reported for that long may be gone. */
  ttlMs: number
}

/** The keys of one tally, on one slot. */
function tallyKeys(name: string): string[] {
  return ['amounts', 'seq', 'seen', 'gone', 'reserved'].map((what) => `${PREFIX}{~${name}}:${what}`)
}

/**
 * The tally of what a fleet's sessions hold of one thing (journal bytes, fault rules) in Redis.
 *
 * @param measure Asks a session how much it holds now (its keys may have expired): its report.
 */
export class Tally {
  readonly #keys: string[]
  /** The reports gathered for the next fit, the newest of each session. */
  readonly #gathered = new Map<string, Report>()
  #nextFit: Promise<void> | undefined

  constructor(
    name: string,
    private readonly context: TallyContext,
    private readonly measure: (session: string) => Promise<Report>,
  ) {
    this.#keys = tallyKeys(name)
  }

  /** What the fleet's sessions hold together, as the tally has it. */
  async total(): Promise<number> {
    return Number(await this.context.send(this.#keys[1]!, ['HGET', this.#keys[1]!, '~total']))
  }

  /**
   * Takes reports and cuts the biggest sessions down until they hold `limit` together, each cut by `cut` (which
   * answers the session's report after it): a few rounds, as sessions that grow meanwhile report again.
   */
  async fit(
    reports: Report[],
    limit: number,
    cut: (session: string, amount: number) => Promise<Report>,
  ): Promise<void> {
    for (let round = 0; round < 4 && reports.length > 0; round++) {
      const [cuts, stale] = (await this.#run(FIT, limit, reports, '')) as [Array<string | number>, string[]]
      const next: Array<Promise<Report>> = stale.map((session) => this.measure(session))
      for (let i = 0; i < cuts.length; i += 2) next.push(cut(String(cuts[i]), Number(cuts[i + 1])))
      reports = await Promise.all(next)
    }
  }

  /**
   * `fit`, a few milliseconds later, with the reports of the server's other sessions meanwhile: resolves once that fit
   * is done. The total may pass `limit` by what the fleet appends meanwhile; each session alone never does.
   */
  fitSoon(report: Report, limit: number, cut: (session: string, amount: number) => Promise<Report>): Promise<void> {
    const known = this.#gathered.get(report[0])
    if (!known || Number(report[2]) > Number(known[2])) this.#gathered.set(report[0], report)
    this.#nextFit ??= new Promise((resolve) => setTimeout(resolve, GATHER_MS)).then(() => {
      const reports = [...this.#gathered.values()]
      this.#gathered.clear()
      this.#nextFit = undefined
      return this.fit(reports, limit, cut)
    })
    return this.#nextFit
  }

  /** Waits for the fit under way, if any (the store closes). */
  async settled(): Promise<void> {
    await this.#nextFit?.catch(() => undefined)
  }

  /**
   * Holds a place for one more, unless the sessions hold `limit` together: a token to give with the report of the
   * change (`release`), or undefined. Sessions not heard of for their TTL are asked first.
   */
  async reserve(limit: number): Promise<string | undefined> {
    const token = randomUUID()
    for (let round = 0; round < 2; round++) {
      const [held, stale] = (await this.#run(RESERVE, limit, [], token)) as [number, string[]]
      if (held === 1) return token
      if (stale.length === 0) return undefined
      await this.report(await Promise.all(stale.map((session) => this.measure(session))))
    }
    return undefined
  }

  /** Takes reports, and gives back the place `token` held. */
  async release(reports: Report[], token: string): Promise<void> {
    await this.#run(RESERVE, -1, reports, token)
  }

  /** Takes reports. */
  async report(reports: Report[]): Promise<void> {
    if (reports.length > 0) await this.#run(RESERVE, 0, reports, '')
  }

  /** A session's keys were deleted: it holds nothing, as of now. */
  async ended(session: string): Promise<void> {
    await this.report([await this.measure(session)])
  }

  #run(script: string, limit: number, reports: Report[], token: string): Promise<unknown> {
    const args = [limit, Date.now(), this.context.ttlMs, reports.length, token, ...reports.flat()]
    return this.context.send(this.#keys[0]!, evalOf(script, this.#keys, args))
  }
}
