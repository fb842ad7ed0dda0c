import type { Choices } from '../../src/schemas/index.js'

/** One request a view sent: its method, path, key (the API's) and parsed body. */
export interface Sent {
  method: string
  path: string
  key?: string
  body?: unknown
}

/** What the fake answers a request with: a status and a body, or a function of the request. */
type Answer = { status: number; body: unknown }
type Route = Answer | ((sent: Sent) => Answer | Promise<Answer>)

/**
 * A client as the console's views take it (`control`, `api`), answering from a table keyed by `METHOD path`
 * (the path with its query), and keeping what was sent. A request the table has no answer for fails the test.
 *
 * @example
 * const client = fakeClient({ 'GET /_sandbox/clock': { status: 200, body: { data: clock } } })
 */
export function fakeClient(table: Record<string, Route>) {
  const sent: Sent[] = []
  const answer = async (request: Sent) => {
    sent.push(request)
    const route = table[`${request.method} ${request.path}`]
    if (!route) throw new Error(`The fake client has no answer for ${request.method} ${request.path}.`)
    return typeof route === 'function' ? route(request) : route
  }
  const bodyOf = (init?: RequestInit) => (typeof init?.body === 'string' ? JSON.parse(init.body) : undefined)
  return {
    sent,
    table,
    control: (path: string, init?: RequestInit) =>
      answer({ method: init?.method ?? 'GET', path, body: bodyOf(init) }) as Promise<any>,
    api: (path: string, key: string, init?: RequestInit) =>
      answer({ method: init?.method ?? 'GET', path, key, body: bodyOf(init) }) as Promise<any>,
  }
}

/** Choices as the default sandbox gives them, two organizations and all. */
export const CHOICES: Choices = {
  kinds: [
    {
      kind: 'calls',
      singular: 'call',
      columns: ['created_at', 'caller_name', 'status', 'summary'],
      reads_one: true,
      links: { contact_id: 'contacts' },
    },
    {
      kind: 'contacts',
      singular: 'contact',
      columns: ['created_at', 'name', 'phone', 'email'],
      reads_one: true,
      links: {},
    },
    {
      kind: 'leads',
      singular: 'lead',
      columns: ['created_at', 'caller_name', 'status', 'urgency'],
      reads_one: false,
      links: { call_log_id: 'calls', contact_id: 'contacts' },
    },
    {
      kind: 'appointments',
      singular: 'appointment',
      columns: ['appointment_date', 'caller_name', 'status', 'service_type'],
      reads_one: false,
      links: { call_log_id: 'calls', contact_id: 'contacts' },
    },
  ],
  call_statuses: ['completed', 'failed', 'blocked', 'in-progress', 'forwarding'],
  scenarios: ['default', 'empty', 'busy'] as Choices['scenarios'],
  organizations: [
    {
      organization_id: '32c2f8c7-f989-4916-b7db-478a1fa9c50b',
      organization_name: 'Sparkle Cleaning',
      business_type: 'cleaning',
      reasons: ['cleaning_booking', 'cleaning_quote'],
    },
    {
      organization_id: '4789e4cf-b70d-42e5-887a-e3192733cc30',
      organization_name: 'Bright Dental',
      business_type: 'dental',
      reasons: ['dental_checkup'],
    },
  ],
  fault_rules: {
    methods: ['GET', 'POST'],
    outcomes: ['status', 'delay_ms', 'error'],
    statuses: [400, 429, 500, 503],
    errors: ['network'],
  },
  keys: [
    {
      key: 'sk_sandbox_all',
      organization_id: '6f1e1c52-9f0e-4d1a-9a57-2d3f5b8c7e01',
      organization_name: 'Bright Smile Dental',
      scopes: ['calls:read', 'contacts:read', 'contacts:write'],
    },
  ],
}

/** A list's answer, as the API gives it. */
export function listOf(data: unknown[], next_cursor: string | null = null) {
  return { status: 200, body: { data, count: data.length, has_more: next_cursor !== null, next_cursor } }
}

/** An error's answer, in the contract's envelope. */
export function refusal(status: number, code: string, message: string, param?: string) {
  return { status, body: { error: { type: 'invalid_request_error', code, message, ...(param ? { param } : {}) } } }
}
