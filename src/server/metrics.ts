import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import { defineEndpoint, type Observer } from '../http/Endpoint.js'
import type { Plane } from '../http/pipeline.js'
import { CONTROL_PREFIX } from '../http/paths.js'
import { NoPath, NoQuery } from '../schemas/index.js'
import type { SandboxWithHandlers } from '../handlers/createSandbox.js'
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
 * endpoint, status and session, and timed; the sessions in memory and their
 * writes; the store's refusals. Only the server loads it.
 *
 * @example
 * const metrics = serverMetrics(sandbox, store)
 * reply(sandbox, request, sandbox.sessions, sandbox.proxy, { rootPlanes: [metrics.plane], observe: metrics.observe })
 */
export function serverMetrics(sandbox: SandboxWithHandlers, store?: CountsErrors): { plane: Plane; observe: Observer } {
  const registry = new Registry()
  const requests = new Counter({
    name: 'call_sandbox_requests_total',
    help: 'Answers given, by plane, endpoint (none: a 404 or 405), status and session.',
    labelNames: ['plane', 'endpoint', 'status', 'session'],
    registers: [registry],
  })
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
    name: 'call_sandbox_writes',
    help: 'Writes since the seed or the last reset, per session this server knows.',
    labelNames: ['session'],
    registers: [registry],
    collect() {
      this.reset()
      for (const { name, writes } of sandbox.sessions.list()) this.set({ session: name }, writes)
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
    description:
      'Answers by plane, endpoint, status and session; a latency histogram; sessions in memory; writes; store errors. The admin token when the server has one.',
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
      requests.inc({ plane, endpoint: endpoint ?? '(none)', status: String(status), session })
      seconds.observe({ plane }, took)
    },
  }
}
