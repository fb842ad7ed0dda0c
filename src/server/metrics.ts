import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import { defineEndpoint, type Observer } from '../http/Endpoint.js'
import type { Plane } from '../http/pipeline.js'
import { CONTROL_PREFIX } from '../http/paths.js'
import { NoPath, NoQuery } from '../schemas/index.js'
import type { SandboxWithHandlers } from '../handlers/createSandbox.js'
import { DEFAULT_SESSION, type Sessions } from '../sessions/Sessions.js'
import { z } from 'zod'
import { adminSteps } from '../control/controlPlane.js'

/** Where Prometheus scrapes the server. */
export const METRICS_PATH = `${CONTROL_PREFIX}/metrics`

/** What the metrics read of the store: how many writes it refused so far. */
export interface CountsErrors {
  readonly errors: number
}

/**
 * The server's metrics in Prometheus's text format, kept by prom-client (the
 * maintained client Prometheus lists for Node): every answer counted by plane,
 * endpoint, status and session, and timed; the sessions in memory and in all,
 * their writes and their journals' bytes; the store's refusals. A bounded number
 * of sessions have a label of their own (see `SessionLabels`). Only the server loads it.
 *
 * @example
 * const metrics = serverMetrics(sandbox, store)
 * dispatch(sandbox, request, { sessions, rootPlanes: [metrics.plane], observe: metrics.observe })
 */
export function serverMetrics(sandbox: SandboxWithHandlers, store?: CountsErrors): { plane: Plane; observe: Observer } {
  const registry = new Registry()
  const requests = new Counter({
    name: 'call_sandbox_requests_total',
    help: `Answers given, by plane, endpoint (none: a 404 or 405), status and session (${OTHER_SESSIONS}: past the first ${LABELLED_SESSIONS} named sessions kept).`,
    labelNames: ['plane', 'endpoint', 'status', 'session'],
    registers: [registry],
    collect() {
      labels.release()
    },
  })
  const labels = new SessionLabels(sandbox.sessions, requests)
  const seconds = new Histogram({
    name: 'call_sandbox_request_duration_seconds',
    help: 'Time from a request coming in to its answer, latency and faults included, by plane.',
    labelNames: ['plane'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  })
  new Gauge({
    name: 'call_sandbox_sessions_in_memory',
    help: 'Sessions whose worlds are in memory, the default one included (at most --max-sessions more).',
    registers: [registry],
    collect() {
      this.set(sandbox.sessions.list().filter(({ in_memory }) => in_memory).length)
    },
  })
  new Gauge({
    name: 'call_sandbox_sessions',
    help: 'Named sessions the server keeps, in memory or put away (at most --session-limit).',
    registers: [registry],
    collect() {
      this.set(sandbox.sessions.size)
    },
  })
  new Gauge({
    name: 'call_sandbox_journal_bytes',
    help: "What every session's request journal holds together, about (at most --journal-bytes).",
    registers: [registry],
    collect() {
      this.set(sandbox.journal.budget.bytes)
    },
  })
  new Gauge({
    name: 'call_sandbox_writes',
    help: `Writes since the seed or the last reset, per session this server keeps (${OTHER_SESSIONS}: the sum of those without a label of their own).`,
    labelNames: ['session'],
    registers: [registry],
    collect() {
      this.reset()
      let others: number | undefined
      for (const { name, writes } of sandbox.sessions.list()) {
        if (labels.has(name)) this.set({ session: name }, writes)
        else others = (others ?? 0) + writes
      }
      if (others !== undefined) this.set({ session: OTHER_SESSIONS }, others)
    },
  })
  let counted = 0
  new Counter({
    name: 'call_sandbox_store_errors_total',
    help: 'Writes and reads the store refused (each answered 503 storage_unavailable).',
    registers: [registry],
    collect() {
      const errors = store?.errors ?? 0
      if (errors > counted) this.inc(errors - counted)
      counted = errors
    },
  })
  const getMetrics = defineEndpoint({
    method: 'GET',
    path: METRICS_PATH,
    requires: 'admin token',
    summary: 'Metrics, in Prometheus text',
    description: `Answers by plane, endpoint, status and session (${LABELLED_SESSIONS} sessions by name at most, the rest as ${OTHER_SESSIONS}); a latency histogram; sessions in memory and in all; writes; the journals' bytes; store errors. The admin token when the server has one.`,
    pathParams: NoPath,
    query: NoQuery,
    response: z.string(),
    answer: async () => ({
      body: {},
      text: await registry.metrics(),
      headers: { 'Content-Type': registry.contentType },
    }),
  })
  return {
    plane: {
      name: 'metrics',
      owns: (path) => path === METRICS_PATH,
      endpoints: [getMetrics],
      emptyBody: 'refused',
      // No world to wait for: a scrape answers while the store is down, and says so.
      needsWorld: false,
      steps: adminSteps,
    },
    observe: ({ plane, endpoint, session, status, seconds: took }) => {
      labels.count({ plane, endpoint: endpoint ?? '(none)', status: String(status), session })
      seconds.observe({ plane }, took)
    },
  }
}

/** Named sessions with a `session` label of their own at once; the answers of the others count under `OTHER_SESSIONS`. */
export const LABELLED_SESSIONS = 100
/** The `session` label of the sessions past `LABELLED_SESSIONS`: no session name has parentheses. */
export const OTHER_SESSIONS = '(other)'

type RequestLabels = Record<'plane' | 'endpoint' | 'status' | 'session', string>

/**
 * Which sessions have a `session` label of their own, so that the metrics
 * keep a bounded number of series whatever the number of session names: the
 * default session, and up to `LABELLED_SESSIONS` named sessions, in the order
 * they are first answered. A session the server no longer keeps (ended,
 * expired, forgotten) loses its series, and its place goes to the next new name.
 */
class SessionLabels {
  /** Each labelled session's series of answers, by their labels: what goes when it does. */
  readonly #labelled = new Map<string, Map<string, RequestLabels>>()
  /** Answers not yet added to the counter, by their labels: at most one entry for each of its series. */
  readonly #pending = new Map<string, { labels: RequestLabels; count: number }>()

  constructor(
    private readonly sessions: Sessions,
    private readonly requests: Counter<keyof RequestLabels>,
  ) {}

  has(name: string): boolean {
    return name === DEFAULT_SESSION || this.#labelled.has(name)
  }

  /**
   * Counts an answer, under its session's own label or `OTHER_SESSIONS`: in `#pending` until the counter is read (see
   * `flush`). The counter's own `inc` hashes the labels again for every answer (1% of the command's time under load).
   */
  count(answer: RequestLabels): void {
    const session = this.#labelOf(answer.session)
    const key = `${answer.plane} ${answer.endpoint} ${answer.status} ${session}`
    const pending = this.#pending.get(key)
    if (pending) {
      pending.count++
      return
    }
    const labels = { ...answer, session }
    this.#pending.set(key, { labels, count: 1 })
    this.#labelled.get(session)?.set(`${labels.plane} ${labels.endpoint} ${labels.status}`, labels)
  }

  /** Adds the answers counted since the counter was last read to it: a scrape reads it (its `collect`). */
  flush(): void {
    for (const { labels, count } of this.#pending.values()) this.requests.inc(labels, count)
    this.#pending.clear()
  }

  /** Takes away the series of sessions the server no longer keeps, and their places. */
  release(): void {
    // Counted first, so that nothing still to be counted brings back a series taken away.
    this.flush()
    for (const [name, series] of this.#labelled) {
      if (this.sessions.has(name)) continue
      for (const labels of series.values()) this.requests.remove(labels)
      this.#labelled.delete(name)
    }
  }

  #labelOf(name: string): string {
    if (this.has(name)) return name
    if (this.#labelled.size >= LABELLED_SESSIONS) this.release()
    if (this.#labelled.size >= LABELLED_SESSIONS) return OTHER_SESSIONS
    this.#labelled.set(name, new Map())
    return name
  }
}
