/**
 * The model of one session a history of `history.ts` writes to, and the
 * check: some serial order of the writes, each placed between when it was
 * sent and when it was answered (a write never answered may be left out),
 * must give every answer the server gave and end in the state every server
 * shows. The search tries every such order (Wing and Gong's, as Knossos
 * does), remembering the places it has been: exact, and quick for a few
 * dozen writes, three at a time.
 */
import { type Event, NOW_MS, type Op, type SettingsChange } from './history.js'

/** The settings as `GET /_sandbox/settings` shows them. */
export interface SettingsState {
  latency: { min: number; max: number } | null
  error_rate: number
  rate_limit: { limit: number; window_ms: number } | null
  changed: string[]
}

/** What the model keeps of the session, and what the servers are read for at the end. */
export interface State {
  /** The clock's offset from `NOW_MS`, in ms. */
  offset: number
  scenario: string
  settings: SettingsState
  /** The fault rules, oldest first. */
  rules: Array<{ id: string; path: string }>
  /** The rules made since the last reset: the next one is `flt_<made + 1>`. */
  made: number
  /** The generator's contacts, by phone, with the id each was made with (in `history.ts`'s `PHONES`). */
  contacts: Record<string, string>
}

/** What the servers show of a state: all but how many rules were made. */
export type Observed = Omit<State, 'made'>

/** The state after `op`, or why `answer` cannot be `op`'s in `state`. */
export function step(state: State, op: Op, event: Pick<Event, 'status' | 'body'> | undefined): State | string {
  const next = apply(state, op, event?.body?.data)
  if (typeof next === 'string') return next
  if (event === undefined) return next
  const { status, body } = event
  const data = body?.data as Record<string, unknown> | undefined
  const now = new Date(NOW_MS + next.offset).toISOString()
  const expected = (wanted: number, what: Record<string, unknown>) => {
    if (status !== wanted) return `answered ${status}, not ${wanted}`
    for (const [field, value] of Object.entries(what)) {
      if (JSON.stringify(data?.[field]) !== JSON.stringify(value))
        return `${field} is ${JSON.stringify(data?.[field])}, not ${JSON.stringify(value)}`
    }
    return next
  }
  switch (op.kind) {
    case 'advance':
    case 'set':
      return expected(200, { now })
    case 'reset':
      return expected(200, { scenario: next.scenario, clock: { now, mode: 'fixed' }, settings: next.settings })
    case 'settings':
    case 'restore settings':
      return expected(200, { ...next.settings })
    case 'add rule':
      return expected(201, { id: `flt_${next.made}`, path: op.path })
    case 'remove rule': {
      // The rule it removed, whole: a rule of the same id made after a reset is another.
      const removed = state.rules.find(({ id }) => id === op.id)
      return removed ? expected(200, { ...removed }) : expected(404, {})
    }
    case 'clear rules':
      return expected(200, { removed: state.rules.length })
    case 'contact':
      return op.phone in state.contacts ? expected(409, {}) : expected(201, { phone: op.phone, created_at: now })
  }
}

/** `op` done in `state`; a contact takes the id its answer gives (an unanswered one: a placeholder). */
function apply(state: State, op: Op, data: Record<string, unknown> | undefined): State | string {
  switch (op.kind) {
    case 'advance':
      return { ...state, offset: state.offset + op.seconds * 1_000 }
    case 'set':
      return { ...state, offset: Date.parse(op.now) - NOW_MS }
    case 'reset':
      return { ...state, offset: 0, scenario: op.scenario ?? state.scenario, rules: [], made: 0, contacts: {} }
    case 'settings':
      return { ...state, settings: changed(state.settings, op.change) }
    case 'restore settings':
      return { ...state, settings: START_SETTINGS }
    case 'add rule':
      return { ...state, made: state.made + 1, rules: [...state.rules, { id: `flt_${state.made + 1}`, path: op.path }] }
    case 'remove rule':
      return { ...state, rules: state.rules.filter(({ id }) => id !== op.id) }
    case 'clear rules':
      return { ...state, rules: [] }
    case 'contact': {
      if (op.phone in state.contacts) return state
      const id = typeof data?.id === 'string' ? data.id : 'unanswered'
      if (Object.values(state.contacts).includes(id)) return `the contact id ${id} is taken`
      // In the order of their phones, as `observe` reads them: states compare as JSON.
      return { ...state, contacts: Object.fromEntries(Object.entries({ ...state.contacts, [op.phone]: id }).sort()) }
    }
  }
}

/** The settings the servers start with (no flags): none changed. */
export const START_SETTINGS: SettingsState = { latency: null, error_rate: 0, rate_limit: null, changed: [] }

const NAMES = ['latency', 'error_rate', 'rate_limit'] as const

function changed(settings: SettingsState, change: SettingsChange): SettingsState {
  const next = { ...settings }
  if ('latency' in change) next.latency = change.latency == null ? null : { min: change.latency, max: change.latency }
  if ('error_rate' in change) next.error_rate = change.error_rate ?? 0
  if ('rate_limit' in change) {
    const limit = change.rate_limit?.split('/')[0]
    next.rate_limit = limit === undefined ? null : { limit: Number(limit), window_ms: 60_000 }
  }
  next.changed = NAMES.filter((name) => name in change || settings.changed.includes(name))
  return next
}

/**
 * Whether some serial order of `events`' writes, each between its sending and its answer (one never answered: or
 * left out), explains every answer and ends in `final`. Undefined when one does; else what went wrong where the
 * search got furthest.
 */
export function check(events: readonly Event[], initial: State, final: Observed): string | undefined {
  const failed = new Set<string>()
  let furthest = { done: -1, why: 'no order ends in the state the servers show' }
  const search = (done: readonly boolean[], count: number, state: State): boolean => {
    if (count === events.length) {
      const why = differences(state, final)
      if (why === undefined) return true
      if (count > furthest.done) furthest = { done: count, why: `the end differs: ${why}` }
      return false
    }
    const key = `${done.map(Number).join('')} ${JSON.stringify(state)}`
    if (failed.has(key)) return false
    // A write may go next if it was sent before every write left was answered.
    const deadline = Math.min(...events.filter((_, i) => !done[i]).map(({ completed }) => completed))
    for (const [i, event] of events.entries()) {
      if (done[i] || event.invoked > deadline) continue
      const answered = Number.isFinite(event.completed)
      const nexts = answered ? [step(state, event.op, event)] : [step(state, event.op, undefined), state]
      for (const next of nexts) {
        if (typeof next === 'string') {
          if (count >= furthest.done) {
            furthest = { done: count, why: `after ${count} writes, ${describe(event)}: ${next}` }
          }
          continue
        }
        const marked = done.with(i, true)
        if (search(marked, count + 1, next)) return true
      }
    }
    failed.add(key)
    return false
  }
  return search(
    events.map(() => false),
    0,
    initial,
  )
    ? undefined
    : furthest.why
}

function describe({ op, server, invoked, completed }: Event): string {
  return `${op.kind} ${JSON.stringify(op)} on server ${server} (${invoked}-${completed})`
}

/** What differs between a state and what the servers show, or undefined. */
export function differences(state: State, final: Observed): string | undefined {
  const fields = Object.keys(final) as Array<keyof Observed>
  const differing = fields.filter((field) => JSON.stringify(state[field]) !== JSON.stringify(final[field]))
  if (differing.length === 0) return undefined
  return differing
    .map((field) => `${field}: ${JSON.stringify(final[field])} (an order gives ${JSON.stringify(state[field])})`)
    .join('; ')
}
