import type { FaultRuleBook } from '../sandbox/FaultRules.js'
import { shown } from '../sandbox/FaultRules.js'
import { type FaultRule, type FaultRuleSpec, MAX_FAULT_RULES } from '../schemas/faultRule.js'
import type { RequestsContext } from './redisRequests.js'
import { evalOf, keyOf } from './redisScripts.js'

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

/** Keeps ARGV[2] (a rule's JSON) under the next id, unless ARGV[1] rules are kept already; its number, or nil. */
const ADD = `
local kept = 0
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, 1, 2) == 'r:' then kept = kept + 1 end
end
if kept >= tonumber(ARGV[1]) then return false end
local n = redis.call('HINCRBY', KEYS[1], 'made', 1)
redis.call('HSET', KEYS[1], 'r:' .. n, ARGV[2], 'seen:' .. n, 0, 'hits:' .. n, 0)
if tonumber(ARGV[3]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return n
`

/**
 * The oldest rule that meets a request (ARGV: method, path, key or '', seed, TTL), counted, as
 * \`MemoryRuleBook.take\`: {n, hits, its JSON}, or nil. Its chance is drawn from the SHA-1 of the seed, the rule
 * and the match, so a run repeats in Redis as in memory (with other draws than memory's).
 */
const TAKE = `
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
        local hash = redis.sha1hex(ARGV[4] .. ' flt_' .. n .. ' ' .. seen)
        drawn = tonumber(string.sub(hash, 1, 8), 16) / 4294967296 < rule.probability
      end
      if drawn then
        return {n, redis.call('HINCRBY', KEYS[1], 'hits:' .. n, 1), values['r:' .. n]}
      end
    end
  end
end
return false
`

/** Forgets rule ARGV[1]: `{its JSON, its hits}` as it stood, or false when there is none. */
const REMOVE = `
local json = redis.call('HGET', KEYS[1], 'r:' .. ARGV[1])
if not json then return false end
local hits = tonumber(redis.call('HGET', KEYS[1], 'hits:' .. ARGV[1]) or '0')
redis.call('HDEL', KEYS[1], 'r:' .. ARGV[1], 'seen:' .. ARGV[1], 'hits:' .. ARGV[1])
return {json, hits}
`

/**
 * Forgets every rule, not the settings; ARGV[1] = 1 starts the ids over too (a reset). At most 300 fields and a few.
 * Answers how many rules it forgot.
 */
const CLEAR = `
local removed = 0
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, 1, 8) ~= 'settings' and (field ~= 'made' or ARGV[1] == '1') then
    redis.call('HDEL', KEYS[1], field)
    if string.sub(field, 1, 2) == 'r:' then removed = removed + 1 end
  end
end
return removed
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

/**
 * A session's fault rules, kept where every server of a fleet applies them and counts in them.
 *
 * @example
 * const rules = sharedFaultRules(context, 'ci-1')
 * await rules.add({ path: '/v1/calls', status: 429, after: 0, times: 3, probability: 1 })
 */
export function sharedFaultRules({ send, ttlMs }: RequestsContext, session: string): FaultRuleBook {
  const key = keyOf(session, 'faults')
  const ruleOf = (n: number, json: string, hits: number): FaultRule =>
    shown({ rule: { id: `flt_${n}`, ...(JSON.parse(json) as FaultRuleSpec) }, hits })
  return {
    add: async (rule) => {
      const n = await send(key, evalOf(ADD, [key], [MAX_FAULT_RULES, JSON.stringify(rule), ttlMs]))
      return n === null ? undefined : ruleOf(Number(n), JSON.stringify(rule), 0)
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
      const removed = await send(key, evalOf(REMOVE, [key], [n]))
      if (!Array.isArray(removed)) return undefined
      const [json, hits] = removed as [string, number]
      return ruleOf(Number(n), json, Number(hits))
    },
    clear: async (restartIds = false) => Number(await send(key, evalOf(CLEAR, [key], [restartIds ? 1 : 0]))),
    take: async ({ method, path, key: presented }, seed) => {
      const found = await send(key, evalOf(TAKE, [key], [method, path, presented ?? '', seed, ttlMs]))
      if (!Array.isArray(found)) return undefined
      const [n, hits, json] = found as [number, number, string]
      return ruleOf(Number(n), json, Number(hits))
    },
  }
}
