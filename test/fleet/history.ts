/**
 * A small Jepsen-style history of one session of a fleet: a seeded generator
 * of writes (the clock moved and set, resets and scenario swaps, settings,
 * fault rules, contacts), sent in rounds, one write to each server of the
 * round at once, and every request with its answer recorded in the order
 * they were sent and answered. `model.ts` checks such a history.
 */
import { mulberry32 } from '../support/prng.js'
import { AUTH } from './fleet.js'

/** One write of the generator, as the model knows it. */
export type Op =
  | { kind: 'advance'; seconds: number }
  | { kind: 'set'; now: string }
  | { kind: 'reset'; scenario?: 'default' | 'empty' }
  | { kind: 'settings'; change: SettingsChange }
  | { kind: 'restore settings' }
  | { kind: 'add rule'; path: string }
  | { kind: 'remove rule'; id: string }
  | { kind: 'clear rules' }
  | { kind: 'contact'; phone: string }

/** A `POST /_sandbox/settings` body of the generator: harmless values (every server keeps answering at once). */
export type SettingsChange = Partial<{ latency: number | null; rate_limit: string | null; error_rate: 0 | null }>

/** One request of a history: what was sent to which server, its answer, and when each happened (a shared counter). */
export interface Event {
  op: Op
  server: number
  invoked: number
  /** Infinity: no answer (the connection failed), so the write may or may not have been applied. */
  completed: number
  status: number
  body: { data?: Record<string, unknown> & { id?: string }; error?: { code: string } } | undefined
}

export const NOW_MS = Date.parse('2026-11-20T12:00:00.000Z')
/** The phones the generator creates contacts with: few, so that some creates meet a phone taken (409). */
export const PHONES = ['+14155550971', '+14155550972', '+14155550973', '+14155550974']

/** How often each kind of write is drawn: every kind (clock moves weigh most), or mostly resets and scenario swaps. */
export const MIXES = {
  every: {
    advance: 5,
    set: 1,
    reset: 1,
    settings: 2,
    'restore settings': 1,
    'add rule': 2,
    'remove rule': 1,
    'clear rules': 1,
    contact: 3,
  },
  resets: {
    advance: 2,
    set: 0,
    reset: 4,
    settings: 0,
    'restore settings': 0,
    'add rule': 2,
    'remove rule': 0,
    'clear rules': 0,
    contact: 1,
  },
} satisfies Record<string, Record<Op['kind'], number>>

/** `rounds` rounds of one write to each of `servers` servers, drawn from `seed` in `mix`. */
export function generate(seed: number, rounds: number, servers: number, mix: keyof typeof MIXES = 'every'): Op[][] {
  const random = mulberry32(seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
  const makers: Record<Op['kind'], () => Op> = {
    advance: () => ({ kind: 'advance', seconds: pick([60, 120, 300, -60]) }),
    set: () => ({ kind: 'set', now: new Date(NOW_MS + pick([1, 2, 3]) * 3_600_000).toISOString() }),
    // A reset names its scenario mostly, so that two at once often swap to two different ones.
    reset: () => ({ kind: 'reset', ...(random() < 0.8 ? { scenario: pick(['default', 'empty'] as const) } : {}) }),
    settings: () => ({ kind: 'settings', change: settingsChange(random, pick) }),
    'restore settings': () => ({ kind: 'restore settings' }),
    'add rule': () => ({ kind: 'add rule', path: pick(['/v1/leads/none-a', '/v1/leads/none-b', '/v1/leads/none-c']) }),
    'remove rule': () => ({ kind: 'remove rule', id: `flt_${pick([1, 2, 3])}` }),
    'clear rules': () => ({ kind: 'clear rules' }),
    contact: () => ({ kind: 'contact', phone: pick(PHONES) }),
  }
  const draws = Object.entries(MIXES[mix]).map(([kind, weight]) => [weight, makers[kind as Op['kind']]] as const)
  const total = draws.reduce((sum, [weight]) => sum + weight, 0)
  const draw = () => {
    let at = random() * total
    for (const [weight, make] of draws) {
      at -= weight
      if (at < 0) return make()
    }
    return draws.at(-1)![1]()
  }
  return Array.from({ length: rounds }, () => Array.from({ length: servers }, draw))
}

function settingsChange(random: () => number, pick: <T>(items: readonly T[]) => T): SettingsChange {
  const change: SettingsChange = {}
  // Each field in about half the changes, at least one: changes of different fields at once must all stay.
  while (Object.keys(change).length === 0) {
    if (random() < 0.5) change.latency = pick([0, 1, 2, null])
    if (random() < 0.5) change.rate_limit = pick(['1000/min', '2000/min', null])
    if (random() < 0.3) change.error_rate = pick([0, null] as const)
  }
  return change
}

/** The request of a write, below the session's root. */
function requestOf(op: Op): { method: string; path: string; body?: unknown } {
  switch (op.kind) {
    case 'advance':
      return { method: 'POST', path: '/_sandbox/clock', body: { advance_seconds: op.seconds } }
    case 'set':
      return { method: 'POST', path: '/_sandbox/clock', body: { now: op.now } }
    case 'reset':
      return { method: 'POST', path: '/_sandbox/reset', body: op.scenario ? { scenario: op.scenario } : {} }
    case 'settings':
      return { method: 'POST', path: '/_sandbox/settings', body: op.change }
    case 'restore settings':
      return { method: 'DELETE', path: '/_sandbox/settings' }
    case 'add rule':
      return { method: 'POST', path: '/_sandbox/faults', body: { path: op.path, status: 503, times: null } }
    case 'remove rule':
      return { method: 'DELETE', path: `/_sandbox/faults/${op.id}` }
    case 'clear rules':
      return { method: 'DELETE', path: '/_sandbox/faults' }
    case 'contact':
      return { method: 'POST', path: '/v1/contacts', body: { phone: op.phone } }
  }
}

/**
 * Sends the rounds to `roots` (a session's root on each server): each round's writes at once, the next round once
 * all of them are answered. Every request and answer is recorded, numbered in the order they happened.
 */
export async function run(rounds: Op[][], roots: readonly string[]): Promise<Event[]> {
  let clock = 0
  const events: Event[] = []
  for (const round of rounds) {
    await Promise.all(
      round.map(async (op, server) => {
        const { method, path, body } = requestOf(op)
        const event: Event = { op, server, invoked: ++clock, completed: Number.POSITIVE_INFINITY, status: 0, body: {} }
        events.push(event)
        try {
          const response = await fetch(`${roots[server]}${path}`, {
            method,
            headers: body === undefined ? AUTH : { ...AUTH, 'Content-Type': 'application/json' },
            body: body === undefined ? undefined : JSON.stringify(body),
          })
          const answer = await response.json()
          event.completed = ++clock
          event.status = response.status
          event.body = answer
        } catch {
          event.body = undefined
        }
      }),
    )
  }
  return events
}

/** A history as lines a failure shows: when each request was sent and answered, to which server, and its answer. */
export function shown(events: readonly Event[]): string {
  return events
    .map(({ op, server, invoked, completed, status, body }) => {
      const { kind, ...fields } = op
      const answer = body?.data ?? body?.error ?? body
      return `${invoked}-${completed} s${server} ${kind} ${JSON.stringify(fields)} → ${status} ${JSON.stringify(answer)}`
    })
    .join('\n')
}
