import { type FaultRuleBook, rulesTogetherError, shown } from '../sandbox/FaultRules.js'
import { type FaultRule, type FaultRuleSpec, MAX_FAULT_RULES, MAX_FAULT_RULES_IN_SERVER } from '../schemas/faultRule.js'
import { DEFAULT_SESSION } from '../schemas/index.js'
import { MIXED_HASH } from './redisDraw.js'
import type { RequestsContext } from './redisRequests.js'
import { evalOf, keyOf } from './redisScripts.js'
import { type Report, SEQUENCE, Tally } from './redisTally.js'

/*
 * A session's fault rules in Redis, one hash, `call-sandbox:{name}:faults`: `made` (the rules made since the last
 * reset: the next id), and per rule n, `r:n` (its fields as JSON), `seen:n` (the requests that matched it) and
 * `hits:n` (those it failed). Each script runs whole on the one node of the session, so a rule's counts are exact
 * whichever server a request reaches: `times: 3` fails three requests of the fleet in all.
 *
 * The same hash keeps the session's run-time settings, changed through `/_sandbox/settings`: `settings` (the changes
 * as JSON, see `Settings.keptText`) and `settings_version`, counted up by each change; the log's read (every
 * request's first step, `READ`) answers the version, and the JSON when it is not the one the server holds. A reset
 * keeps them, as it keeps the settings in memory.
 */

/** How many rules KEYS[1] holds, as `kept`. */
const KEPT = `
local kept = 0
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, 1, 2) == 'r:' then kept = kept + 1 end
end
`

/**
 * Keeps ARGV[2] (a rule's JSON) under the next id, unless ARGV[1] rules are kept already: {its number or 0, how many
 * rules the session holds, the sequence number of this change (see `Tally`)}.
 */
const ADD = `${SEQUENCE}${KEPT}
if kept >= tonumber(ARGV[1]) then return {0, kept, sequence(1, 'rules_seq', false)} end
local n = redis.call('HINCRBY', KEYS[1], 'made', 1)
redis.call('HSET', KEYS[1], 'r:' .. n, ARGV[2], 'seen:' .. n, 0, 'hits:' .. n, 0)
if tonumber(ARGV[3]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return {n, kept + 1, sequence(1, 'rules_seq', true)}
`

/**
 * Forgets rule ARGV[1]: {its JSON as it stood or '' (none such), its hits, how many rules the session holds, the
 * sequence number}.
 */
const REMOVE = `${SEQUENCE}
local json = redis.call('HGET', KEYS[1], 'r:' .. ARGV[1])
local hits = tonumber(redis.call('HGET', KEYS[1], 'hits:' .. ARGV[1]) or '0')
if json then redis.call('HDEL', KEYS[1], 'r:' .. ARGV[1], 'seen:' .. ARGV[1], 'hits:' .. ARGV[1]) end
${KEPT}
return {json or '', hits, kept, sequence(1, 'rules_seq', json ~= false)}
`

/** How many rules the session holds, and a sequence number (kept while its rules are: they may have expired). */
const COUNT = `${SEQUENCE}${KEPT}
return {kept, sequence(1, 'rules_seq', redis.call('EXISTS', KEYS[1]) == 1)}
`

/**
 * The oldest rule that meets a request (ARGV: method, path, key or '', seed, TTL), counted, as
 * \`MemoryRuleBook.take\`: {n, hits, its JSON}, or nil. Its chance is drawn as memory draws it (\`draw\`), from the
 * seed, the rule and the match: one seed meets the same faults in Redis as in memory.
 */
const TAKE = `${MIXED_HASH}
local fields = redis.call('HGETALL', KEYS[1])
local values, numbers = {}, {}
for i = 1, #fields, 2 do
  values[fields[i]] = fields[i + 1]
  if string.sub(fields[i], 1, 2) == 'r:' then table.insert(numbers, tonumber(string.sub(fields[i], 3))) end
end
if #numbers == 0 then return false end
if tonumber(ARGV[5]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
table.sort(numbers)
local path = ARGV[2]
for _, n in ipairs(numbers) do
  local rule = cjson.decode(values['r:' .. n])
  local pattern = rule.path
  local matches
  if string.sub(pattern, -1) == '*' then
    matches = string.sub(path, 1, #pattern - 1) == string.sub(pattern, 1, -2)
  else
    matches = path == pattern
  end
  if matches and (rule.method == nil or rule.method == ARGV[1]) and (rule.key == nil or rule.key == ARGV[3]) then
    local seen = redis.call('HINCRBY', KEYS[1], 'seen:' .. n, 1)
    local hits = tonumber(values['hits:' .. n])
    if seen > rule.after and (rule.times == cjson.null or hits < rule.times) then
      local drawn = true
      if rule.probability < 1 then
        drawn = mixed_hash(ARGV[4] .. ' flt_' .. n .. ' ' .. seen) / 4294967296 < rule.probability
      end
      if drawn then
        return {n, redis.call('HINCRBY', KEYS[1], 'hits:' .. n, 1), values['r:' .. n]}
      end
    end
  end
end
return false
`

/**
 * Forgets every rule, not the settings; ARGV[1] = 1 starts the ids over too (a reset). At most 300 fields and a few.
 * Answers how many rules it forgot, and the sequence number of the change (see `Tally`).
 */
const CLEAR = `${SEQUENCE}
local removed = 0
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  local kept = string.sub(field, 1, 8) == 'settings' or field == 'rules_seq' or (field == 'made' and ARGV[1] ~= '1')
  if not kept then
    redis.call('HDEL', KEYS[1], field)
    if string.sub(field, 1, 2) == 'r:' then removed = removed + 1 end
  end
end
return {removed, sequence(1, 'rules_seq', redis.call('EXISTS', KEYS[1]) == 1)}
`

/**
 * Keeps ARGV[1], the settings' changes as JSON, for every server (TTL ARGV[2]), when the settings are still at version
 * ARGV[3] (those the server worked them out from): `{1, their new version}`; else `{0, the version, its JSON or ''}`.
 */
const KEEP_SETTINGS = `
local version = tonumber(redis.call('HGET', KEYS[1], 'settings_version') or '0')
if version ~= tonumber(ARGV[3]) then return {0, version, redis.call('HGET', KEYS[1], 'settings') or ''} end
version = redis.call('HINCRBY', KEYS[1], 'settings_version', 1)
redis.call('HSET', KEYS[1], 'settings', ARGV[1])
if tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return {1, version}
`

/**
 * Keeps a session's run-time settings (as `Settings.keptText` writes them) where every server reads them, if they are
 * still at `version`: their new version once Redis has them (see the note above); else, unkept, the version and JSON
 * another server kept since.
 *
 * @example
 * const kept = await keepSettings(context, 'ci-1', '{"rate_limit":null}', 0)
 */
export async function keepSettings(
  { send, ttlMs }: RequestsContext,
  session: string,
  text: string,
  version: number,
): Promise<{ kept: boolean; version: number; text: string }> {
  const key = keyOf(session, 'faults')
  const [kept, now, held] = (await send(key, evalOf(KEEP_SETTINGS, [key], [text, ttlMs, version]))) as [
    number,
    number,
    string?,
  ]
  return { kept: kept === 1, version: Number(now), text: kept === 1 ? text : (held ?? '') }
}

/** How many rules a named session holds, told to the fleet's tally: after a reset, which removes them in its append. */
export async function recountRules(context: RequestsContext, session: string): Promise<void> {
  if (session === DEFAULT_SESSION) return
  const key = keyOf(session, 'faults')
  const [held, sequence] = (await context.send(key, evalOf(COUNT, [key], []))) as [number, string]
  await context.tallies.rules.report([[session, Number(held), String(sequence)]])
}

/**
 * The tally of the named sessions' fault rules in Redis (see `Tally`).
 *
 * @example
 * const rules = rulesTally(context)
 */
export function rulesTally({ send, ttlMs }: Pick<RequestsContext, 'send' | 'ttlMs'>): Tally {
  return new Tally('rules', { send, ttlMs }, async (session) => {
    const key = keyOf(session, 'faults')
    const [held, sequence] = (await send(key, evalOf(COUNT, [key], []))) as [number, string]
    return [session, Number(held), String(sequence)]
  })
}

/**
 * A session's fault rules, kept where every server of a fleet applies them and counts in them.
 *
 * @example
 * const rules = sharedFaultRules(context, 'ci-1')
 * await rules.add({ path: '/v1/calls', status: 429, after: 0, times: 3, probability: 1 })
 */
export function sharedFaultRules(context: RequestsContext, session: string): FaultRuleBook {
  const { send, ttlMs } = context
  const rules = context.tallies.rules
  const key = keyOf(session, 'faults')
  const ruleOf = (n: number, json: string, hits: number): FaultRule =>
    shown({ rule: { id: `flt_${n}`, ...(JSON.parse(json) as FaultRuleSpec) }, hits })
  // The default session's rules are the server's own, and count in no limit of the sessions', as in memory.
  const counted = session !== DEFAULT_SESSION
  const add = async (rule: FaultRuleSpec): Promise<[number, Report]> => {
    const [n, held, sequence] = (await send(
      key,
      evalOf(ADD, [key], [MAX_FAULT_RULES, JSON.stringify(rule), ttlMs]),
    )) as [number, number, string]
    return [Number(n), [session, Number(held), String(sequence)]]
  }
  return {
    add: async (rule) => {
      if (!counted) {
        const [n] = await add(rule)
        return n === 0 ? undefined : ruleOf(n, JSON.stringify(rule), 0)
      }
      // A place in the fleet's total first, so that servers adding at once cannot pass it together.
      const token = await rules.reserve(MAX_FAULT_RULES_IN_SERVER)
      if (token === undefined) throw rulesTogetherError("This fleet's")
      let report: Report | undefined
      try {
        const [n, added] = await add(rule)
        report = added
        return n === 0 ? undefined : ruleOf(n, JSON.stringify(rule), 0)
      } finally {
        await rules.release(report ? [report] : [], token)
      }
    },
    list: async () => {
      const fields = ((await send(key, ['HGETALL', key])) ?? {}) as Record<string, string>
      return Object.keys(fields)
        .filter((field) => field.startsWith('r:'))
        .map((field) => Number(field.slice(2)))
        .sort((a, b) => a - b)
        .map((n) => ruleOf(n, fields[`r:${n}`]!, Number(fields[`hits:${n}`] ?? 0)))
    },
    remove: async (id) => {
      const n = /^flt_(\d+)$/.exec(id)?.[1]
      if (n === undefined) return undefined
      const [json, hits, held, sequence] = (await send(key, evalOf(REMOVE, [key], [n]))) as [
        string,
        number,
        number,
        string,
      ]
      if (counted) await rules.report([[session, Number(held), String(sequence)]])
      return json === '' ? undefined : ruleOf(Number(n), json, Number(hits))
    },
    clear: async (restartIds = false) => {
      const [removed, sequence] = (await send(key, evalOf(CLEAR, [key], [restartIds ? 1 : 0]))) as [number, string]
      if (counted) await rules.report([[session, 0, String(sequence)]])
      return Number(removed)
    },
    take: async ({ method, path, key: presented }, seed) => {
      const found = await send(key, evalOf(TAKE, [key], [method, path, presented ?? '', seed, ttlMs]))
      if (!Array.isArray(found)) return undefined
      const [n, hits, json] = found as [number, number, string]
      return ruleOf(Number(n), json, Number(hits))
    },
  }
}
