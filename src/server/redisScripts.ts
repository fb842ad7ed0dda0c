/*
 * The Redis keys of `--store` and the scripts that change them.
 *
 * Every key of a session is hash-tagged by its name, `call-sandbox:{name}:…`,
 * so a Redis Cluster keeps a session's keys on one shard, and every script
 * names the keys of one session only. Two keys belong to no session, each on
 * a slot of its own, and are only ever touched by commands of their own:
 * `call-sandbox:world` (the world every server must have) and
 * `call-sandbox:sessions` (the names of the sessions, for a server that
 * starts: a sorted set, by when each was made).
 *
 * A session's log: `:log`, a list of entries, each its tag (8 characters,
 * drawn by the server that wrote it) then its JSON; `:head`, a hash:
 * `generation` (a reset starts the list over in the next one), `base` (how
 * many entries `:snapshot` holds folded, so that positions in the log stay
 * absolute across a compaction), `tag` (the tag of the last entry the
 * snapshot holds), `bytes` (of the list) and `snapshot_bytes`. A world
 * stands at a place (generation, position, tag of its last entry): it reads
 * what is after it, and appends only there. The tag tells a world that its
 * place is no longer in the log (entries lost in a failover, the session
 * expired and written again) and must be read whole.
 *
 * Besides: `:session` (how a named session was made), `:journal`, `:usage`,
 * `:live` (live mode's lease), `:compacting` (the lease of the server
 * that compacts the log) and `:faults` (the fault rules, see
 * `redisFaultRules.ts`).
 */

export const PREFIX = 'call-sandbox:'
/** The world options every server of a fleet must share. */
export const WORLD_KEY = `${PREFIX}world`
/** The names of the named sessions, scored by when each was made (ms). */
export const SESSIONS_KEY = `${PREFIX}sessions`
/** An entry's tag, before its JSON. */
export const TAG_LENGTH = 8

/** The keys of a session's world that an idle session's TTL applies to, in the order the scripts take them. */
const EXPIRING = ['head', 'log', 'snapshot', 'session', 'journal', 'usage'] as const
/** A session's keys: those that expire, the lease of the compaction (the scripts take it last), live mode's lease. */
const SESSION_KEYS = [...EXPIRING, 'compacting', 'live', 'faults'] as const

/** A key of a session's, hash-tagged by its name. */
export function keyOf(session: string, what: (typeof SESSION_KEYS)[number]): string {
  return `${PREFIX}{${session}}:${what}`
}

/** The keys the log's scripts take: those that expire, the lease of the compaction, then the fault rules' hash. */
export function worldKeys(session: string): string[] {
  return [...EXPIRING, 'compacting' as const, 'faults' as const].map((what) => keyOf(session, what))
}

/** Every key of a session: what its end deletes. */
export function allKeys(session: string): string[] {
  return SESSION_KEYS.map((what) => keyOf(session, what))
}

/**
 * Where the world stands, and whether its place is still in the log: sets
 * `generation`, `base`, `last` (the tag at `position`) and `fits`. A script
 * that uses it takes the world's generation, position and tag as ARGV[1..3],
 * and, as ARGV[4], the TTL its keys are given again (0: leave them).
 */
const PLACE = `
local head = redis.call('HMGET', KEYS[1], 'generation', 'base', 'tag', 'bytes', 'snapshot_bytes')
local generation = tonumber(head[1] or '0')
local base = tonumber(head[2] or '0')
local length = redis.call('LLEN', KEYS[2])
local position = tonumber(ARGV[2])
local fits = false
if generation == tonumber(ARGV[1]) and position >= base and position <= base + length then
  local last = head[3] or ''
  if position > base then last = string.sub(redis.call('LINDEX', KEYS[2], position - base - 1), 1, ${TAG_LENGTH}) end
  fits = last == ARGV[3]
end
if tonumber(ARGV[4]) > 0 then
  for i = 1, ${EXPIRING.length} do redis.call('PEXPIRE', KEYS[i], ARGV[4]) end
end
`

/**
 * What is after the world's place: `{generation, position, 0, entries}`;
 * or, when its place is no longer in the log, all of it:
 * `{generation, base, 1, entries, snapshot or false, the snapshot's tag}`.
 * Either is followed by the run-time settings' version (in `:faults`, see
 * `redisFaultRules.ts`) and, when it is not ARGV[5] (the one the server
 * holds), their JSON ('' for none), else false: every request reads the
 * log first, so each server applies a change from its next request on.
 * Last, 1 when `:session` (how the session was made) is there, else 0.
 */
export const READ = `${PLACE}
local version = tonumber(redis.call('HGET', KEYS[8], 'settings_version') or '0')
local settings = false
if version ~= tonumber(ARGV[5]) then settings = redis.call('HGET', KEYS[8], 'settings') or '' end
if tonumber(ARGV[4]) > 0 then redis.call('PEXPIRE', KEYS[8], ARGV[4]) end
if fits then
  local entries = {}
  if position < base + length then entries = redis.call('LRANGE', KEYS[2], position - base, -1) end
  return {generation, position, 0, entries, false, '', version, settings, redis.call('EXISTS', KEYS[4])}
end
local all = redis.call('LRANGE', KEYS[2], 0, -1)
return {generation, base, 1, all, redis.call('GET', KEYS[3]), head[3] or '', version, settings, redis.call('EXISTS', KEYS[4])}
`

/**
 * Appends ARGV[5] where the world stands, or answers -1. A reset (ARGV[6])
 * starts the list over, in the next generation, and removes the fault rules
 * (not the settings, nor the rules' sequence number: see `redisFaultRules.ts`
 * and `redisTally.ts`) and starts their ids over: at
 * its place among the other servers' writes, so a rule added after the reset
 * stays, whatever the reset's server does next. Answers `{generation, due}`:
 * `due` when the log has outgrown its snapshot (see `outgrows`: past its
 * size plus ARGV[7] bytes) and this server took the lease to compact it, for
 * ARGV[8] ms.
 */
export const APPEND = `${PLACE}
if not fits or position ~= base + length then return -1 end
local bytes = tonumber(head[4] or '0')
local snapshotBytes = tonumber(head[5] or '0')
if ARGV[6] == 'reset' then
  redis.call('DEL', KEYS[2], KEYS[3])
  generation = generation + 1
  bytes = 0
  snapshotBytes = 0
  redis.call('HSET', KEYS[1], 'generation', generation, 'base', 0, 'tag', '', 'snapshot_bytes', 0)
  for _, field in ipairs(redis.call('HKEYS', KEYS[8])) do
    if string.sub(field, 1, 8) ~= 'settings' and field ~= 'rules_seq' then redis.call('HDEL', KEYS[8], field) end
  end
end
redis.call('RPUSH', KEYS[2], ARGV[5])
bytes = bytes + #ARGV[5]
redis.call('HSET', KEYS[1], 'bytes', bytes)
if tonumber(ARGV[4]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
end
local due = 0
if bytes > snapshotBytes + tonumber(ARGV[7]) and redis.call('SET', KEYS[7], '1', 'NX', 'PX', ARGV[8]) then due = 1 end
return {generation, due}
`

/**
 * Keeps ARGV[5], the world as it stood at its place, as the snapshot, and
 * drops the entries it holds from the head of the list: in one script, so a
 * reader finds the log before or after, and an entry appended since stays.
 * Answers 1, or 0 when the place is no longer in the log (a reset came
 * since). Gives up the lease either way.
 */
export const COMPACT = `${PLACE}
redis.call('DEL', KEYS[7])
if not fits or position == base then return 0 end
redis.call('LTRIM', KEYS[2], position - base, -1)
local bytes = 0
for _, entry in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do bytes = bytes + #entry end
redis.call('SET', KEYS[3], ARGV[5])
redis.call('HSET', KEYS[1], 'base', position, 'tag', ARGV[3], 'bytes', bytes, 'snapshot_bytes', #ARGV[5])
if tonumber(ARGV[4]) > 0 then
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
  redis.call('PEXPIRE', KEYS[3], ARGV[4])
end
return 1
`

/** Takes or renews the lease on a world's timed work: free, or already this server's. */
export const LEASE = `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`

/** The newest ARGV[1] journal entries, and how many there are. */
export const JOURNAL = `
return {redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1), redis.call('LLEN', KEYS[1])}
`

/** Forgets a name of `call-sandbox:sessions` still scored ARGV[2] (not made again since it was found gone). */
export const FORGET = `
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
`

/** The command that runs `script` over `keys`. */
export function evalOf(script: string, keys: readonly string[], args: ReadonlyArray<string | number>): string[] {
  return ['EVAL', script, String(keys.length), ...keys, ...args.map(String)]
}
