import { z } from 'zod'
import { thousands } from '../text/thousands.js'

/*
 * The run-time settings of a world: its latency, error rate and rate limit. One rule for each, read by the command's
 * flags (`--latency`, `--error-rate`, `--rate-limit`), the in-process options, `POST /_sandbox/sessions` and
 * `/_sandbox/settings`.
 */

export const MAX_LATENCY_MS = 60_000
/** A rate limit's budget: at most what nine digits of `--rate-limit` say. */
export const MAX_RATE_LIMIT = 999_999_999
/** A rate limit's longest window, a day: a window longer than any test run would never end. */
export const MAX_RATE_WINDOW_MS = 86_400_000

/** Added latency in milliseconds: fixed when `min` equals `max`, else drawn from the range each time. */
export interface Latency {
  min: number
  max: number
}

/** A budget of requests per window, per key. */
export interface RateLimit {
  limit: number
  windowMs: number
}

export const LATENCY_RULE = `milliseconds (250) or a range (100-400), at most ${thousands(MAX_LATENCY_MS)}`
export const RATE_LIMIT_RULE = 'requests per window, such as 60/min, 5/s or 1000/h'
export const ERROR_RATE_RULE = 'a number from 0 to 1'

/**
 * A latency: `250`, `'250'` or `'100-400'` (milliseconds, at most 60,000), or `{ min, max }`; undefined for anything
 * else.
 *
 * @example
 * readLatency('100-400') // { min: 100, max: 400 }
 */
export function readLatency(value: unknown): Latency | undefined {
  let latency: { min: unknown; max: unknown }
  if (typeof value === 'number') {
    latency = { min: value, max: value }
  } else if (typeof value === 'string') {
    const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(value.trim())
    if (!match) return undefined
    latency = { min: Number(match[1]), max: Number(match[2] ?? match[1]) }
  } else if (typeof value === 'object' && value !== null) {
    latency = { min: (value as Latency).min, max: (value as Latency).max }
  } else {
    return undefined
  }
  const { min, max } = latency
  if (!Number.isInteger(min) || !Number.isInteger(max)) return undefined
  if ((min as number) < 0 || (min as number) > (max as number) || (max as number) > MAX_LATENCY_MS) return undefined
  return latency as Latency
}

/** An error rate: a number from 0 to 1; undefined for anything else. */
export function readErrorRate(value: unknown): number | undefined {
  return typeof value === 'number' && value >= 0 && value <= 1 ? value : undefined
}

const WINDOWS: Record<string, number> = { s: 1_000, sec: 1_000, min: 60_000, h: 3_600_000, hour: 3_600_000 }

/**
 * A rate limit: `'60/min'` (also `/s`, `/h`), or `{ limit, windowMs }` (window a minute when absent); undefined for
 * anything else.
 *
 * @example
 * readRateLimit('60/min') // { limit: 60, windowMs: 60_000 }
 */
export function readRateLimit(value: unknown): RateLimit | undefined {
  let rateLimit: { limit: unknown; windowMs: unknown }
  if (typeof value === 'string') {
    const match = /^(\d{1,9})\/(s|sec|min|h|hour)$/.exec(value.trim())
    if (!match) return undefined
    rateLimit = { limit: Number(match[1]), windowMs: WINDOWS[match[2]!]! }
  } else if (typeof value === 'object' && value !== null) {
    rateLimit = { limit: (value as RateLimit).limit, windowMs: (value as RateLimit).windowMs ?? 60_000 }
  } else {
    return undefined
  }
  const { limit, windowMs } = rateLimit
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_RATE_LIMIT) return undefined
  if (!Number.isInteger(windowMs) || (windowMs as number) < 1 || (windowMs as number) > MAX_RATE_WINDOW_MS)
    return undefined
  return rateLimit as RateLimit
}

/** A rate limit as the control plane writes it: `window_ms`, not `windowMs`. */
const RateLimitObject = z.strictObject({
  limit: z.number({ error: 'must be a number' }),
  window_ms: z.number({ error: 'must be a number' }),
})
type RateLimitObject = z.infer<typeof RateLimitObject>

/** A rate limit over HTTP (`'60/min'` or `{ limit, window_ms }`) as the sandbox takes it in process. */
export function rateLimitOf(value: string | RateLimitObject): string | RateLimit {
  return typeof value === 'string' ? value : { limit: value.limit, windowMs: value.window_ms }
}

const LATENCY_ERROR = `must be ${LATENCY_RULE}, or null for none`
const RATE_LIMIT_ERROR = `must be ${RATE_LIMIT_RULE}, or { limit, window_ms } with limit from 1 to ${thousands(MAX_RATE_LIMIT)} and window_ms from 1 to ${thousands(MAX_RATE_WINDOW_MS)}, or null for none`
const ERROR_RATE_ERROR = `must be ${ERROR_RATE_RULE}, or null for none`

/*
 * Null is given with the text form, inside the union, not around it: the OpenAPI document then shows a text or null
 * (`type: ['string', 'null']`) among the forms, not an `anyOf` of the union and null.
 */

/** `latency` over HTTP: what `--latency` takes, or `{ min, max }` as `GET /_sandbox/settings` shows it; null: none. */
const LatencySetting = z
  .union([z.number(), z.string().nullable(), z.strictObject({ min: z.number(), max: z.number() })], {
    error: LATENCY_ERROR,
  })
  .refine((value) => value === null || readLatency(value) !== undefined, { error: LATENCY_ERROR })

/** `rate_limit` over HTTP: what `--rate-limit` takes, or `{ limit, window_ms }` as `GET /_sandbox/settings` shows it. */
const RateLimitSetting = z
  .union([z.string().nullable(), RateLimitObject], { error: RATE_LIMIT_ERROR })
  .refine((value) => value === null || readRateLimit(rateLimitOf(value)) !== undefined, { error: RATE_LIMIT_ERROR })

/** `error_rate` over HTTP: the fraction of API requests answered 500 or 503, drawn from the seed. */
const ErrorRateSetting = z
  .number({ error: ERROR_RATE_ERROR })
  .min(0, ERROR_RATE_ERROR)
  .max(1, ERROR_RATE_ERROR)
  .nullable()

/**
 * The settings a body may give, each optional (absent: as it is, or the server's for a new session; `null`: off): the
 * fields `POST /_sandbox/sessions` and `POST /_sandbox/settings` share.
 */
export const SettingsFields = {
  latency: LatencySetting.optional(),
  error_rate: ErrorRateSetting.optional(),
  rate_limit: RateLimitSetting.optional(),
}

/** Body of `POST /_sandbox/settings`: the settings to change, the others left as they are; `null` turns one off. */
export const SettingsRequest = z.strictObject(SettingsFields)
export type SettingsRequest = z.infer<typeof SettingsRequest>

/** The settings in effect, as `GET /_sandbox/settings`, the health and a session's info show them. */
export const SettingsState = z.object({
  /** Milliseconds added to every API answer, drawn from `min` to `max`; null: none. */
  latency: z.object({ min: z.int(), max: z.int() }).nullable(),
  /** The fraction of API requests answered 500 or 503, drawn from the seed; 0: none. */
  error_rate: z.number(),
  /** Requests per key and window; null: no rate limit. */
  rate_limit: z.object({ limit: z.int(), window_ms: z.int() }).nullable(),
  /** Which settings were changed at run time (`POST /_sandbox/settings`) from those the world started with. */
  changed: z.array(z.enum(['latency', 'error_rate', 'rate_limit'])),
})
export type SettingsState = z.infer<typeof SettingsState>
