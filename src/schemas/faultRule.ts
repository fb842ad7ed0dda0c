import { z } from 'zod'

/** The error statuses a request can be made to answer (`Prefer: code=`, a fault rule): the contract's table, and 503. */
export const FORCEABLE_STATUSES = [400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 500, 503] as const

/** How many fault rules one world keeps at once: each is checked against every API request. */
export const MAX_FAULT_RULES = 100
/** How many fault rules the sessions of one server hold together in memory: 100 sessions' worth. */
export const MAX_FAULT_RULES_IN_SERVER = 10_000
/** How long a rule's path may be: longer than any path of the API, short enough to check cheaply. */
export const MAX_RULE_PATH = 512
/** The most a count (`after`, `times`) may be: a billion requests is more than a test ever sends. */
const MAX_COUNT = 1_000_000_000
/** The most a rule may slow an answer by, as `Prefer: delay=` and `--latency`. */
const MAX_DELAY_MS = 60_000

/**
 * The methods the API's routes take: a rule of another method could never meet a request (the API answers it 405
 * before rules are checked). test/faultRules.test.ts holds it to the routes.
 */
export const API_METHODS = ['GET', 'POST'] as const
/** What a rule does to a request it meets: answer an error status, answer late, or fail (`error`); exactly one. */
export const FAULT_OUTCOMES = ['status', 'delay_ms', 'error'] as const

const count = (what: string) =>
  z
    .int({ error: `must be a whole number of ${what}` })
    .min(0, `must be 0 or more ${what}`)
    .max(MAX_COUNT, `must be at most ${MAX_COUNT} ${what}`)

/**
 * A fault rule as a test sets it (`POST /_sandbox/faults`, `sandbox.faults.add`): which API requests it meets, how
 * many of them, and what it does to them; exactly one of `status`, `delay_ms` and `error`.
 */
export const FaultRuleRequest = z
  .strictObject({
    /** A path below the root as the journal shows it: exact, or ending in `*` for every path that starts so. */
    path: z
      .string({ error: 'must be a string' })
      .min(1, 'must be a path such as /v1/calls or /v1/calls*')
      .max(MAX_RULE_PATH, `must be at most ${MAX_RULE_PATH} characters`)
      .regex(/^\//, 'must start with /, such as /v1/calls or /v1/calls*'),
    method: z.enum(API_METHODS, { error: `must be one of ${API_METHODS.join(', ')}` }).optional(),
    /** Only requests that present this key (one of the sandbox's). */
    key: z.string({ error: 'must be a string' }).max(200, 'must be at most 200 characters').optional(),
    /** How many matching requests go through first. */
    after: count('requests').default(0),
    /** How many requests it fails, then it is spent; null: until it is removed. */
    times: count('requests').min(1, 'must be 1 or more requests, or null').nullable().default(1),
    /** The chance a matching request meets it, drawn from the seed: the same run meets the same faults. */
    probability: z
      .number({ error: 'must be a number from 0 to 1' })
      .gt(0, 'must be more than 0, and at most 1')
      .max(1, 'must be at most 1')
      .default(1),
    status: z
      .union(
        FORCEABLE_STATUSES.map((status) => z.literal(status)),
        { error: `must be an error status: ${FORCEABLE_STATUSES.join(', ')}` },
      )
      .optional(),
    delay_ms: z
      .int({ error: 'must be a whole number of milliseconds' })
      .min(1, 'must be 1 or more milliseconds')
      .max(MAX_DELAY_MS, `must be at most ${MAX_DELAY_MS} milliseconds`)
      .optional(),
    error: z.literal('network', { error: 'must be "network": the connection closes without an answer' }).optional(),
  })
  .refine((rule) => FAULT_OUTCOMES.filter((outcome) => rule[outcome] !== undefined).length === 1, {
    error: 'or delay_ms or error: give exactly one of the three, what the rule does',
    path: ['status'],
  })
/** A rule as given, before its defaults. */
export type FaultRuleInput = z.input<typeof FaultRuleRequest>
/** A rule with its defaults. */
export type FaultRuleSpec = z.output<typeof FaultRuleRequest>

/** A rule as the sandbox keeps it and shows it: its id, and how far it has gone. */
export const FaultRule = z.object({
  id: z.string(),
  path: z.string(),
  method: z.enum(API_METHODS).optional(),
  key: z.string().optional(),
  after: z.int(),
  times: z.int().nullable(),
  probability: z.number(),
  status: z.int().optional(),
  delay_ms: z.int().optional(),
  error: z.literal('network').optional(),
  /** How many requests it failed (or slowed). */
  hits: z.int(),
  /** How many more it will; null: until it is removed. */
  remaining: z.int().nullable(),
})
export type FaultRule = z.infer<typeof FaultRule>
