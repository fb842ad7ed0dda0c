import { parseDuration } from '../sandbox/options.js'
import { DEFAULT_SESSION } from '../schemas/index.js'

/*
 * When a server forgets a session: the one rule, here, for the server that
 * keeps sessions in memory and for a store that will keep them for a fleet.
 */

/** How long a session may go unused before its server forgets it, by default (`--session-ttl`): a day. */
export const DEFAULT_SESSION_TTL_MS = 24 * 60 * 60_000
/** The longest TTL: a year. */
const MAX_SESSION_TTL_MS = 365 * 24 * 60 * 60_000

/**
 * A session TTL in milliseconds, or undefined for none: a number of
 * milliseconds, or a duration such as `30m`, `24h`, `7d`; `0`, `off` or
 * `false`, none (sessions are kept until they are ended). Default a day.
 *
 * @example
 * parseSessionTtl('2h') // 7_200_000
 * parseSessionTtl('off') // undefined
 */
export function parseSessionTtl(ttl: number | string | false | undefined): number | undefined {
  if (ttl === undefined) return DEFAULT_SESSION_TTL_MS
  if (ttl === false || ttl === 0 || (typeof ttl === 'string' && /^\s*(0|off)\s*$/i.test(ttl))) return undefined
  const ms = typeof ttl === 'number' ? ttl : (parseDuration(ttl) ?? NaN)
  if (!Number.isSafeInteger(ms) || ms < 1 || ms > MAX_SESSION_TTL_MS) {
    throw new TypeError(
      `sessionTtl must be a duration up to a year, such as 30m, 24h or 7d (or milliseconds), or 0 or off for none; got ${JSON.stringify(ttl)}.`,
    )
  }
  return ms
}

/**
 * When a session expires: its last use plus the TTL; never (undefined) for the
 * default session, or without a TTL. A session is forgotten once this is past
 * and it is answering no request: its world, writes, journal and usage report.
 *
 * @example
 * expiresAt('ci-1', Date.parse('2026-11-20T12:00:00Z'), DEFAULT_SESSION_TTL_MS) // 2026-11-21T12:00:00Z, in ms
 */
export function expiresAt(name: string, lastUsedAt: number, ttlMs: number | undefined): number | undefined {
  return ttlMs === undefined || name === DEFAULT_SESSION ? undefined : lastUsedAt + ttlMs
}
