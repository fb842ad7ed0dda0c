import { z } from 'zod'
import { CallStatus } from './call.js'
import { API_METHODS, FAULT_OUTCOMES } from './faultRule.js'
import { E164_MESSAGE, E164_PATTERN, Timestamp, Uuid } from './common.js'
import { Scope } from './registry.js'
import { parseInstant } from './instant.js'
import { inRange, rangeText, SEED_RANGE } from './instantRange.js'
import { byKind, KINDS } from './registry.js'
import { SettingsFields, SettingsState } from './settings.js'

/*
 * The control plane's bodies and answers (`/_sandbox/`): what the OpenAPI
 * document says of them, and what their handlers check.
 */

/** The named worlds of `fixtures/scenarios.json`. */
export const ScenarioName = z.enum(['default', 'empty', 'busy', 'degraded'])
export type ScenarioName = z.infer<typeof ScenarioName>

/** Body of `POST /_sandbox/reset`; empty or `{}` resets to the current scenario. */
export const ResetRequest = z.strictObject({
  scenario: z.enum(ScenarioName.options, { error: `must be one of ${ScenarioName.options.join(', ')}` }).optional(),
})

/** Body of `POST /_sandbox/calls`; empty or `{}` is a random caller of the first organization. */
export const SimulateCallRequest = z.strictObject({
  organization_id: z
    .uuid({ abort: true, error: 'must be an organization id, a UUID' })
    .regex(/^[0-9a-f-]+$/, 'must be lower-case')
    .optional(),
  caller_phone: z.string({ error: 'must be a string' }).regex(E164_PATTERN, E164_MESSAGE).optional(),
  status: z.enum(CallStatus.options, { error: `must be one of ${CallStatus.options.join(', ')}` }).optional(),
  /** A reason id of the organization's business type, such as `cleaning_booking`. */
  reason: z.string({ error: 'must be a string' }).max(100).optional(),
})
export type SimulateCallRequest = z.infer<typeof SimulateCallRequest>

/** Body of `POST /_sandbox/clock`: an instant to set, or seconds to move on (or back). */
export const ClockRequest = z
  .strictObject({
    now: z
      .string({ error: 'must be a string' })
      .datetime({ offset: true, error: 'must be an ISO 8601 date-time such as 2026-11-20T12:00:00Z' })
      .optional(),
    advance_seconds: z
      .number({ error: 'must be a number of seconds' })
      .min(-10 * 365 * 86_400, 'must be at most ten years back (-315360000)')
      .max(10 * 365 * 86_400, 'must be at most ten years on (315360000)')
      .optional(),
  })
  .refine((body) => (body.now === undefined) !== (body.advance_seconds === undefined), {
    error: 'is required, or advance_seconds instead: give one of the two',
    path: ['now'],
  })

export const ClockState = z.object({
  now: Timestamp,
  /** `fixed`: it stands still until set or moved; `running`: it follows the real time. */
  mode: z.enum(['fixed', 'running']),
})
export type ClockState = z.infer<typeof ClockState>

/** Where a world's writes are kept, and whether the last one was taken. */
export const StoreHealth = z.object({
  /** `memory`: nowhere but in this process; `file`: `--data`; `redis`: `--store redis://`. */
  kind: z.enum(['memory', 'file', 'redis']),
  state: z.enum(['ok', 'unavailable']),
  /** Why the last write was refused, while the store is unavailable. */
  error: z.string().nullable(),
})
export type StoreHealth = z.infer<typeof StoreHealth>

export const Health = z.object({
  /** `degraded`: the store refuses writes (they are answered 503 `storage_unavailable`); reads go on. */
  status: z.enum(['ok', 'degraded']),
  seed: z.int(),
  scenario: ScenarioName,
  clock: ClockState,
  records: z.object(byKind(() => z.int())),
  journal: z.object({ entries: z.int(), capacity: z.int() }),
  live: z.object({ interval_ms: z.int().nullable() }),
  /** The latency, error rate and rate limit in effect (`GET /_sandbox/settings`). */
  settings: SettingsState,
  store: StoreHealth,
})
export type Health = z.infer<typeof Health>

/** The rules of the contract an upstream's answer is held to in proxy mode (`--proxy`). */
export const ContractRule = z.enum([
  'status',
  'json',
  'meta',
  'request_id',
  'schema',
  'url',
  'fields',
  'error',
  'record',
  'transcript',
  'limit',
  'paging',
  'order',
  'filter',
  'duplicate',
])
export type ContractRule = z.infer<typeof ContractRule>

/** One way an upstream's answer differs from what the contract promises. */
export const ContractViolation = z.object({
  rule: ContractRule,
  /** Where in the answer: `data[3].caller_phone`, `meta.request_id`, `(status)`, `(header) X-Request-Id`. */
  field: z.string(),
  /** What the contract promises there. */
  expected: z.string(),
  /** What the upstream answered there, as JSON text (shortened), or `(missing)`. */
  got: z.string(),
})
export type ContractViolation = z.infer<typeof ContractViolation>

/** Proxy mode: what the journal keeps of an upstream's answer held to the contract. */
export const JournalContract = z.object({
  /** The upstream's `X-Request-Id`, or null (none, or no answer: a 502 or 504 of the proxy's own). */
  upstream_request_id: z.string().nullable(),
  violation_count: z.int(),
  /** The first 50 of them. */
  violations: z.array(ContractViolation),
})
export type JournalContract = z.infer<typeof JournalContract>

/** One side of an exchange as the journal keeps it. */
export const JournalMessage = z.object({
  /**
   * By lower-cased name; several `Set-Cookie`s in one value, one a line (`\n`). Each value cut at 1 KiB (then
   * `… (cut: <n> characters in all)`); at most 64 headers and 16 KiB of them.
   */
  headers: z.record(z.string(), z.string()),
  /** Whether headers were left out, past 64 of them or 16 KiB. */
  headers_truncated: z.boolean(),
  /** The body as text (none: no body); cut at 4 KiB, then `body_truncated`. */
  body: z.string().nullable(),
  body_truncated: z.boolean(),
})
export type JournalMessage = z.infer<typeof JournalMessage>

/** One API request as the sandbox answered it. */
export const JournalEntry = z.object({
  request_id: z.string(),
  method: z.string(),
  /** The path as sent, without the query string. */
  path: z.string(),
  /**
   * The query parameters as sent, a credential (`access_token`, `api_key`, …) shown as the key is; a repeated one has
   * an array of its values.
   */
  query: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  /** Present, true, when the query had more than 100 parameters (a 400): the journal keeps the first 100. */
  query_truncated: z.literal(true).optional(),
  status: z.int(),
  /**
   * The Bearer key the request carried (even an unknown one), or null without one: a built-in key whole, the admin
   * token as `(admin token)`, any other as `…` and its last 4 characters at most (`shownCredential`).
   */
  key: z.string().nullable(),
  /** Real milliseconds from the request reaching the sandbox to its answer, latency included. */
  duration_ms: z.number(),
  /** The sandbox clock when it was answered. */
  timestamp: Timestamp,
  /** Proxy mode only: the upstream's answer held to the contract. */
  contract: JournalContract.optional(),
  /** The fault rule the request met (`POST /_sandbox/faults`), which failed, slowed or dropped it (status 0). */
  fault: z.string().optional(),
  /** What was sent: its headers (credentials shown as the key is) and its body, kept up to 4 KiB. */
  request: JournalMessage.optional(),
  /** What was answered: its headers and its body, kept up to 4 KiB (a fleet's shared journal: 1 KiB of a success). */
  response: JournalMessage.optional(),
})
export type JournalEntry = z.infer<typeof JournalEntry>

/** What one key did at one endpoint since the last reset. */
export const EndpointUsage = z.object({
  method: z.string(),
  /** The route's path, such as `/v1/calls/:call_id`. */
  path: z.string(),
  requests: z.int(),
  /** Answers by status code, such as `{ "200": 9, "429": 1 }`. */
  statuses: z.record(z.string(), z.int()),
  /** Every query parameter of the endpoint's the key sent to it, sorted. */
  parameters: z.array(z.string()),
})
export type EndpointUsage = z.infer<typeof EndpointUsage>

/** The usage report of one key: what it called, and the scopes that takes. */
export const KeyUsage = z.object({
  /** The key as the journal shows it. */
  key: z.string(),
  organization_id: Uuid,
  requests: z.int(),
  endpoints: z.array(EndpointUsage),
  /** API endpoints it never called, as `GET /v1/leads`. */
  untouched_endpoints: z.array(z.string()),
  scopes: z.object({
    /** The scopes the key has. */
    granted: z.array(Scope),
    /** The scopes of the endpoints it called: the least-privilege set for what it does. */
    needed: z.array(Scope),
    /** Granted and never needed: a key for this integration can do without them. */
    unused: z.array(Scope),
    /** Needed and not granted: its requests there were refused with 403. */
    missing: z.array(Scope),
  }),
})
export type KeyUsage = z.infer<typeof KeyUsage>

/**
 * A session's name, in its root `/sessions/{name}`: 1 to 64 letters, digits, dots, underscores or hyphens, and not
 * `.` or `..`, which a URL resolves away (`/sessions/../v1/me` is `/v1/me`): no URL would reach that session.
 */
export const SESSION_NAME_PATTERN = /^(?!\.\.?$)[A-Za-z0-9._-]{1,64}$/
/** What a session name is, as the document and the errors say it. */
export const SESSION_NAME_RULE = '1 to 64 letters, digits, dots, underscores or hyphens (but not . or .. alone)'
export const SESSION_NAME_MESSAGE = `must be ${SESSION_NAME_RULE}`
/** The name of the session the bare root answers as; `/sessions/default/` is the same world. */
export const DEFAULT_SESSION = 'default'

/**
 * Body of `POST /_sandbox/sessions`: a name (made up when absent) and what the session's world differs in from the
 * server's.
 */
export const CreateSessionRequest = z.strictObject({
  name: z.string({ error: 'must be a string' }).regex(SESSION_NAME_PATTERN, SESSION_NAME_MESSAGE).optional(),
  seed: z.int({ error: 'must be an integer' }).min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  now: z
    .string({ error: 'must be a string' })
    .datetime({ offset: true, abort: true, error: 'must be an ISO 8601 date-time such as 2026-11-20T12:00:00Z' })
    .refine((text) => inRange(parseInstant(text), SEED_RANGE), {
      error: `must be from ${rangeText(SEED_RANGE)}: the world reaches 90 days back and weeks ahead of it`,
    })
    .optional(),
  scenario: z.enum(ScenarioName.options, { error: `must be one of ${ScenarioName.options.join(', ')}` }).optional(),
  calls: z.int({ error: 'must be an integer' }).min(0).max(100_000, 'must be at most 100000').optional(),
  /** The session's latency, error rate and rate limit, as the server's flags take them; absent: the server's; null: none. */
  ...SettingsFields,
})
export type CreateSessionRequest = z.infer<typeof CreateSessionRequest>

/** A session as `GET /_sandbox/sessions` lists it. */
export const SessionInfo = z.object({
  name: z.string(),
  /** When it was made (real time). */
  created_at: Timestamp,
  /** When it last answered a request (real time). */
  last_used_at: Timestamp,
  /** Writes since its seed. */
  writes: z.int(),
  /** Requests it answered since the server started. */
  requests: z.int(),
  /** Whether its world is in memory now, or evicted (it comes back as it was at its next request). */
  in_memory: z.boolean(),
  /** When the server forgets it unless it is used again (`--session-ttl`); null: never (the default session, or no TTL). */
  expires_at: Timestamp.nullable(),
  /** Its latency, error rate and rate limit in effect. */
  settings: SettingsState,
})
export type SessionInfo = z.infer<typeof SessionInfo>

/**
 * One of the sandbox's API keys as `GET /_sandbox/keys` lists it: shown as the journal shows a key (a built-in key
 * whole, a key of a user's own organizations by its last 4 at most), with its organization and scopes.
 */
export const KeyInfo = z.object({
  key: z.string(),
  organization_id: Uuid,
  organization_name: z.string(),
  scopes: z.array(Scope),
})
export type KeyInfo = z.infer<typeof KeyInfo>

export const ScenarioInfo = z.object({ name: ScenarioName, description: z.string(), current: z.boolean() })

/**
 * `GET /_sandbox/choices`: the values the console offers, from the schemas and fixtures the sandbox checks with, so
 * that it never offers one the sandbox refuses.
 */
export const Choices = z.object({
  /** The kinds of record the API lists, with the fields the console shows of them. */
  kinds: z.array(
    z.object({
      kind: z.enum(KINDS),
      /** One record, in words (`call`). */
      singular: z.string(),
      columns: z.array(z.string()),
      /** Whether the API reads one record of the kind (`GET /v1/{kind}/{id}`). */
      reads_one: z.boolean(),
      /** The fields that name a record of another kind, and that kind (a lead's `call_log_id`: `calls`). */
      links: z.record(z.string(), z.enum(KINDS)),
    }),
  ),
  /** The `status` values `POST /_sandbox/calls` takes. */
  call_statuses: z.array(CallStatus),
  /** The `scenario` values `POST /_sandbox/reset` takes. */
  scenarios: z.array(ScenarioName),
  /** The sandbox's organizations, each with the `reason` values `POST /_sandbox/calls` takes for it. */
  organizations: z.array(
    z.object({
      organization_id: Uuid,
      organization_name: z.string(),
      business_type: z.string(),
      reasons: z.array(z.string()),
    }),
  ),
  /** What `POST /_sandbox/faults` takes: its methods, what a rule does (`outcomes`), its statuses and its errors. */
  fault_rules: z.object({
    methods: z.array(z.enum(API_METHODS)),
    outcomes: z.array(z.enum(FAULT_OUTCOMES)),
    statuses: z.array(z.int()),
    errors: z.array(z.string()),
  }),
  /**
   * The API keys (`GET /_sandbox/keys`'s): the console names the ones that have a scope a request lacked, and replays
   * a journaled request with its key when the sandbox issued it (a user's own key is shown by its last 4 only).
   */
  keys: z.array(KeyInfo),
})
export type Choices = z.infer<typeof Choices>

/** One example of a rule broken, as the drift report shows it. */
export const DriftExample = z.object({
  /** The proxy's request id (`X-Sandbox-Request-Id`, the journal's). */
  request_id: z.string(),
  /** The upstream's `X-Request-Id`, for the vendor to find the request. */
  upstream_request_id: z.string().nullable(),
  /** Method, path and query as sent, such as `GET /v1/calls?limit=50`; a credential in the query shown by its last 4 at most. */
  request: z.string(),
  status: z.int(),
  ...ContractViolation.omit({ rule: true }).shape,
})

/** `GET /_sandbox/drift`: how the upstream's answers differ from the contract, per endpoint and rule. */
export const DriftReport = z.object({
  /** The upstream's base URL; null without a proxy. */
  upstream: z.string().nullable(),
  /** When counting began: the proxy's start or the last reset; null without a proxy. */
  since: Timestamp.nullable(),
  /** Upstream answers held to the contract. */
  answers: z.int(),
  answers_with_violations: z.int(),
  /** Requests the upstream did not answer (refused, unreachable, timed out): the proxy's own 502 and 504. */
  unanswered: z.int(),
  endpoints: z.array(
    z.object({
      /** `GET /v1/calls/:call_id`, or `GET (no such endpoint)`. */
      endpoint: z.string(),
      answers: z.int(),
      answers_with_violations: z.int(),
      unanswered: z.int(),
      rules: z.array(
        z.object({
          rule: ContractRule,
          /** What the contract promises. */
          promise: z.string(),
          violations: z.int(),
          /** Answers that broke it at least once. */
          answers: z.int(),
          /** The first few, one per field. */
          examples: z.array(DriftExample),
        }),
      ),
    }),
  ),
})
export type DriftReport = z.infer<typeof DriftReport>
