import { z } from 'zod'
import { ApiError } from '../schemas/ApiError.js'
import { toCallWithMessages } from '../http/resources.js'
import { CLOCK_RANGE, inRange, rangeText } from '../schemas/instantRange.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import { businessTypes } from '../seed/fixtures.js'
import { iso } from '../seed/iso.js'
import {
  Choices,
  ClockRequest,
  FAULT_OUTCOMES,
  FaultRuleRequest,
  KINDS,
  type Kind,
  RESOURCES,
  ClockState,
  DriftReport,
  Health,
  JournalEntry,
  JournalQuery,
  Meta,
  KeyInfo,
  KeyUsage,
  parseInstant,
  CallWithMessages,
  NoPath,
  NoQuery,
  RecordEnvelope,
  StoreHealth,
  ResetRequest,
  ScenarioInfo,
  SettingsRequest,
  SettingsState,
  SimulateCallRequest,
  type FieldError,
} from '../schemas/index.js'
import { scenarios, SCENARIO_NAMES } from '../sandbox/scenarios.js'
import { routes } from '../http/routes.js'
import { defineEndpoint, type Endpoint } from '../http/Endpoint.js'
import { noDrift } from '../proxy/Drift.js'
import { READINESS_PATH } from '../http/paths.js'
import { settingsChangeOf } from '../sandbox/Settings.js'
import { shownCredential } from '../sandbox/credentials.js'

/**
 * A simulated call's organization and reason must exist: what the schema
 * cannot see, listed beside its own problems. A field the schema refuses
 * (not a UUID, not a string) is left to it.
 */
function simulatedCallProblems(sandbox: Sandbox, fields: Record<string, unknown>): FieldError[] {
  const details: FieldError[] = []
  const { organization_id = sandbox.organization().organization_id, reason } = fields
  if (!SimulateCallRequest.shape.organization_id.safeParse(organization_id).success) return details
  const organization = sandbox.organizations.find((candidate) => candidate.organization_id === organization_id)
  if (!organization) {
    const known = sandbox.organizations.map((candidate) => candidate.organization_id).join(', ')
    details.push({
      field: 'organization_id',
      code: 'invalid_choice',
      message: `organization_id must be one of the sandbox's organizations: ${known}`,
    })
  } else if (reason !== undefined && SimulateCallRequest.shape.reason.safeParse(reason).success) {
    const reasons = reasonsOf(organization.business_type)
    if (!reasons.includes(reason as string)) {
      details.push({
        field: 'reason',
        code: 'invalid_choice',
        message: `reason must be one of ${organization.business_type}'s: ${reasons.join(', ')}`,
      })
    }
  }
  return details
}

/** The reasons a caller of this business type may ring for: `POST /_sandbox/calls`'s `reason`. */
function reasonsOf(businessType: string): string[] {
  return businessTypes.get(businessType)!.reasons.map(({ id }) => id)
}

/** The API keys with their organizations and scopes: a built-in key whole, a user's own by its last 4 at most. */
function keysOf(sandbox: Sandbox): KeyInfo[] {
  return sandbox.apiKeys.map(({ key, organization, scopes }) => ({
    key: shownCredential(key, sandbox.options.adminToken),
    organization_id: organization.organization_id,
    organization_name: organization.organization_name,
    scopes: [...scopes],
  }))
}

function choicesOf(sandbox: Sandbox): Choices {
  return {
    kinds: KINDS.map((kind) => {
      const { singular, columns, getOne } = RESOURCES[kind]
      const links: Record<string, Kind> = { ...RESOURCES[kind].links }
      return { kind, singular, columns: [...columns], reads_one: getOne !== undefined, links }
    }),
    call_statuses: SimulateCallRequest.shape.status.unwrap().options,
    scenarios: ResetRequest.shape.scenario.unwrap().options,
    organizations: sandbox.organizations.map(({ organization_id, organization_name, business_type }) => ({
      organization_id,
      organization_name,
      business_type,
      reasons: reasonsOf(business_type),
    })),
    fault_rules: {
      methods: FaultRuleRequest.shape.method.unwrap().options,
      outcomes: [...FAULT_OUTCOMES],
      statuses: FaultRuleRequest.shape.status.unwrap().options.map((status) => status.value),
      errors: [FaultRuleRequest.shape.error.unwrap().value],
    },
    keys: keysOf(sandbox),
  }
}

/** The control plane, under `/_sandbox/`: what a test or a developer does to the sandbox itself. */
export const controlRoutes: readonly Endpoint[] = [
  defineEndpoint({
    method: 'GET',
    path: '/_sandbox/health',
    requires: 'admin token',
    summary: 'Health of the sandbox',
    description: 'Whether the sandbox is up, with its seed, scenario, clock and record counts.',
    pathParams: NoPath,
    query: NoQuery,
    response: RecordEnvelope(Health),
    answer: ({ sandbox }) => ({ body: { data: sandbox.health() } }),
  }),
  defineEndpoint({
    method: 'GET',
    path: READINESS_PATH,
    requires: 'nothing',
    summary: 'Whether the sandbox is ready to serve',
    description:
      'For a load balancer or an orchestrator: 200 once the world is seeded and its store takes writes; 503 `service_unavailable` while the store refuses them, and 503 `storage_unavailable` while a shared store cannot be read or does not answer within `--store-timeout`. No admin token.',
    pathParams: NoPath,
    query: NoQuery,
    response: RecordEnvelope(z.object({ ready: z.literal(true), store: StoreHealth })),
    answer: ({ sandbox }) => {
      const { store } = sandbox.health()
      if (store.state !== 'ok') {
        throw new ApiError(
          'service_unavailable',
          `Not ready: the ${store.kind} store refuses writes (${store.error}).`,
          {
            headers: { 'Retry-After': '1' },
          },
        )
      }
      return { body: { data: { ready: true, store } } }
    },
  }),
  defineEndpoint({
    method: 'POST',
    path: '/_sandbox/reset',
    requires: 'admin token',
    summary: 'Reset to the seeded world',
    description:
      'Undoes every write since the seed, puts the clock back, and empties the request journal, the usage report, the rate limits and, in proxy mode, the drift report. `{"scenario": "empty"}` seeds that scenario instead. The settings changed at run time stay (`DELETE /_sandbox/settings` restores them), and the simulated failures start again from the seed.',
    pathParams: NoPath,
    query: NoQuery,
    body: ResetRequest,
    response: RecordEnvelope(Health),
    answer: async ({ sandbox, body, proxy }) => {
      await sandbox.reset(body)
      proxy?.clear()
      return { body: { data: sandbox.health() }, asOf: sandbox.clock.now() }
    },
  }),
  defineEndpoint({
    method: 'GET',
    path: '/_sandbox/requests',
    requires: 'admin token',
    summary: 'The request journal',
    description: `The newest API requests and their responses, newest first (at most the journal's size, 1,000 by default, and 32 MiB of bodies), each with its headers and its body and the response's, bodies kept up to 4 KiB (over Redis, a successful response's up to 1 KiB). Filters: method, path (a trailing * for a prefix), status (404 or 4xx), key, since and until (a time range), request_id (one request, by its X-Request-Id); count is how many match, limit or not. offset passes over that many of the newest matches, for the pages past the first (at most 1,000,000; past the last match, an empty page). Requests to /_sandbox/ and /openapi.json are not in it.`,
    pathParams: NoPath,
    query: JournalQuery,
    response: z.object({ data: z.array(JournalEntry), count: z.int(), meta: Meta }),
    answer: async ({ sandbox, query }) => {
      const { limit, offset, ...filter } = query
      const { entries, count } = await sandbox.journalEntries(limit, filter, offset)
      return { body: { data: entries, count } }
    },
  }),
  defineEndpoint({
    method: 'GET',
    path: '/_sandbox/drift',
    requires: 'admin token',
    summary: 'How the upstream differs from the contract (proxy mode)',
    description:
      "With --proxy: per endpoint and rule, how many of the upstream's responses broke what the contract promises, with the first examples (field, expected, got, and the upstream's request id), to paste into a ticket for the vendor. Since the proxy started or the last reset. Without a proxy: empty, with upstream null.",
    pathParams: NoPath,
    query: NoQuery,
    response: RecordEnvelope(DriftReport),
    answer: ({ proxy }) => ({ body: { data: proxy?.drift.report() ?? noDrift() } }),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/_sandbox/usage',
    requires: 'admin token',
    summary: 'Usage report per key',
    description:
      'Per key since the last reset: the endpoints, parameters and statuses it used, the endpoints it never touched, and the scopes it needed: the least-privilege set for the integration.',
    pathParams: NoPath,
    query: NoQuery,
    response: RecordEnvelope(z.array(KeyUsage)),
    answer: async ({ sandbox }) => ({ body: { data: await sandbox.usageReport(routes) } }),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/_sandbox/keys',
    requires: 'admin token',
    summary: 'The API keys and their scopes',
    description:
      "The keys the API takes, each with its organization and scopes: which key to use for an endpoint, or which has the scope a 403 named. A built-in key is shown whole; a key of the user's own organizations (`--organizations`) by its last 4 characters at most, as the journal shows it.",
    pathParams: NoPath,
    query: NoQuery,
    response: RecordEnvelope(z.array(KeyInfo)),
    answer: ({ sandbox }) => ({ body: { data: keysOf(sandbox) } }),
  }),
  defineEndpoint({
    method: 'POST',
    path: '/_sandbox/calls',
    requires: 'admin token',
    summary: 'Simulate an inbound call',
    description:
      'A caller rings: the call is told from the fixtures and stored, the contact made or updated, and a lead or an appointment follows when the conversation brings one. `{}` is a random caller of the first organization with a completed call; `in-progress` and `forwarding` calls end when the clock reaches their end.',
    pathParams: NoPath,
    query: NoQuery,
    body: SimulateCallRequest,
    checkBody: simulatedCallProblems,
    status: 201,
    response: RecordEnvelope(CallWithMessages),
    answer: async ({ sandbox, body }) => {
      const { call } = await sandbox.addCall(body)
      return {
        status: 201,
        body: { data: toCallWithMessages(call, sandbox.db.messages(call.id), sandbox.clock.now()) },
        headers: { Location: `/v1/calls/${call.id}` },
      }
    },
  }),
  defineEndpoint({
    method: 'GET',
    path: '/_sandbox/clock',
    requires: 'admin token',
    summary: 'Read the clock',
    description: 'The sandbox time: new records and meta.timestamp read it, and live calls end by it.',
    pathParams: NoPath,
    query: NoQuery,
    response: RecordEnvelope(ClockState),
    answer: ({ sandbox }) => ({ body: { data: sandbox.clockState() } }),
  }),
  defineEndpoint({
    method: 'POST',
    path: '/_sandbox/clock',
    requires: 'admin token',
    summary: 'Set or move the clock',
    description:
      '`{"now": "2026-11-21T09:00:00Z"}` sets it; `{"advance_seconds": 900}` moves it on (negative: back). Live calls whose end has come end.',
    pathParams: NoPath,
    query: NoQuery,
    body: ClockRequest,
    response: RecordEnvelope(ClockState),
    answer: async ({ sandbox, body }) => {
      const { now, advance_seconds } = body
      // A move is worked out from the clock in the write's turn (a fleet's other servers may move it first).
      const moved = await sandbox.moveClock((current) => {
        const target = now !== undefined ? parseInstant(now) : current + advance_seconds! * 1_000
        if (inRange(target, CLOCK_RANGE)) return target
        const field = now !== undefined ? 'now' : 'advance_seconds'
        const at =
          target !== undefined && Number.isFinite(new Date(target).getTime()) ? new Date(target).toISOString() : now
        const message = `${field} must keep the clock from ${rangeText(CLOCK_RANGE)}; it would be at ${at}`
        throw new ApiError('validation_failed', `The body has a bad field: ${message}.`, {
          details: [{ field, code: 'invalid_format', message }],
        })
      })
      await sandbox.settle()
      // The clock as this move left it: a write another request of this server made since comes after it.
      return { body: { data: { ...sandbox.clockState(), now: iso(moved) } }, asOf: moved }
    },
  }),
  defineEndpoint({
    method: 'GET',
    path: '/_sandbox/settings',
    requires: 'admin token',
    summary: 'Read the settings',
    description:
      "The latency, error rate and rate limit this root's API requests meet (the server's flags, a session's creation options, or changed since, on any server of a fleet), and which were changed at run time.",
    pathParams: NoPath,
    query: NoQuery,
    response: RecordEnvelope(SettingsState),
    answer: ({ sandbox }) => ({ body: { data: sandbox.settings.state() } }),
  }),
  defineEndpoint({
    method: 'POST',
    path: '/_sandbox/settings',
    requires: 'admin token',
    summary: 'Change the settings',
    description:
      'Changes the latency, error rate or rate limit from the next request on; a field left out stays as it is, `null` turns it off. `{"rate_limit": "2/min"}`, `{"latency": "100-400", "error_rate": 0.2}`. A new rate limit starts fresh budgets. A reset keeps the changed settings and replays the fault stream from its start under them; `DELETE /_sandbox/settings` goes back to those the root started with. With a store servers share (`--store redis://`), the change is in the store before it is answered (503 `storage_unavailable` when the store refuses it), and every server applies it from its next request; each counts its own rate limit budgets.',
    pathParams: NoPath,
    query: NoQuery,
    body: SettingsRequest,
    response: RecordEnvelope(SettingsState),
    answer: async ({ sandbox, body }) => {
      await sandbox.settings.updateEverywhere(settingsChangeOf(body))
      return { body: { data: sandbox.settings.state() } }
    },
  }),
  defineEndpoint({
    method: 'DELETE',
    path: '/_sandbox/settings',
    requires: 'admin token',
    summary: 'Restore the starting settings',
    description:
      "Undoes every run-time change: back to the latency, error rate and rate limit this root started with (the server's flags and scenario, or the session's creation options); with a store servers share, on every server.",
    pathParams: NoPath,
    query: NoQuery,
    response: RecordEnvelope(SettingsState),
    answer: async ({ sandbox }) => {
      await sandbox.settings.restoreEverywhere()
      return { body: { data: sandbox.settings.state() } }
    },
  }),
  defineEndpoint({
    method: 'GET',
    path: '/_sandbox/scenarios',
    requires: 'admin token',
    summary: 'The scenarios',
    description: 'The named worlds `POST /_sandbox/reset` can seed, and which one is in use.',
    pathParams: NoPath,
    query: NoQuery,
    response: RecordEnvelope(z.array(ScenarioInfo)),
    answer: ({ sandbox }) => ({
      body: {
        data: SCENARIO_NAMES.map((name) => ({
          name,
          description: scenarios[name].description,
          current: name === sandbox.options.scenario,
        })),
      },
    }),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/_sandbox/choices',
    requires: 'admin token',
    summary: 'The choices the console offers',
    description:
      "The values the control plane's bodies take (call statuses, reasons by organization, scenarios) and the kinds of record the API lists, each with the fields the console shows: what the console at `/_sandbox/console/` offers, never a value the sandbox refuses.",
    pathParams: NoPath,
    query: NoQuery,
    response: RecordEnvelope(Choices),
    answer: ({ sandbox }) => ({ body: { data: choicesOf(sandbox) } }),
  }),
]
