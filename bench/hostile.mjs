// What a hostile client costs the command (docs/security.md): the time to answer a
// long unknown path and a probe sent beside it, the peak memory of a flood of big
// headers over many session names, the metrics' size after many names, and what a
// page of another origin may do to the control plane.
//
// node bench/hostile.mjs            the figures, at the sizes the security issue names
// HOSTILE_QUICK=1 node bench/...    smaller sizes, for a quick look
import { readFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { killChildren, launch, waitFor } from './children.mjs'
import { serve } from './servers.mjs'

const QUICK = process.env.HOSTILE_QUICK === '1'
/** The issue's flood (over 40 sessions), and one filling the journals over the 200 sessions kept in memory by default. */
const FLOODS = [
  { requests: QUICK ? 2_000 : 16_000, sessions: 40 },
  { requests: QUICK ? 6_000 : 48_000, sessions: 200 },
]
const FLOOD_CONNECTIONS = 64
const METRIC_NAMES = 2_000
const PATH_LENGTHS = QUICK ? [8_000] : [8_000, 60_000]
/** A request still unanswered after this is reported as such, not waited for. */
const GIVE_UP_MS = 120_000

/**
 * What `send` got: a status (0 when none came), headers, body size and time; `timedOut` past GIVE_UP_MS.
 * @typedef {{ status: number, ms: number, headers?: import('node:http').IncomingHttpHeaders, bytes?: number, timedOut?: boolean, error?: string }} Answer
 */

/**
 * One request on a fresh connection, or over `agent`'s.
 * @param {string} url
 * @param {{ method?: string, path: string, headers?: Record<string, string>, body?: string, agent?: Agent }} request
 * @returns {Promise<Answer>}
 */
function send(url, { method = 'GET', path, headers = {}, body, agent }) {
  const target = new URL(url)
  const started = performance.now()
  return new Promise((resolve) => {
    const sent = request(
      { host: target.hostname, port: target.port, method, path, headers, agent: agent ?? false },
      (response) => {
        let bytes = 0
        response.on('data', (chunk) => {
          bytes += chunk.length
        })
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            bytes,
            ms: performance.now() - started,
          }),
        )
      },
    )
    sent.setTimeout(GIVE_UP_MS, () => {
      sent.destroy()
      resolve({ status: 0, timedOut: true, ms: performance.now() - started })
    })
    sent.on('error', (error) =>
      resolve({ status: 0, error: /** @type {NodeJS.ErrnoException} */ (error).code, ms: performance.now() - started }),
    )
    sent.end(body)
  })
}

/** @param {number} ms */
const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(0)} ms`)

async function longPaths() {
  for (const length of PATH_LENGTHS) {
    const { url, child } = await serve([])
    const long = send(url, { path: `/v1/callz/${'a'.repeat(length)}` })
    await new Promise((resolve) => setTimeout(resolve, 100))
    const probe = await send(url, { path: '/_sandbox/live' })
    const answered = await long
    console.log(
      `long path of ${length.toLocaleString('en')} characters: ${answered.timedOut ? `no answer in ${fmt(GIVE_UP_MS)}` : `${answered.status} in ${fmt(answered.ms)}`}; a probe sent 100 ms later: ${probe.timedOut ? 'no answer' : `${probe.status} in ${fmt(probe.ms)}`}`,
    )
    child.kill('SIGKILL')
  }
}

/**
 * A figure of the child's status, in MiB: VmRSS now, or VmHWM, the peak of its life.
 * @param {import('./children.mjs').Child} child @param {'VmRSS' | 'VmHWM'} field
 */
function statusMib(child, field) {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]) / 1024
}

/**
 * A flood of `requests` big headers over `sessions` names (issue 43's: 16,000 over 40) on keep-alive connections,
 * against the command as it starts by default (its clock running, so each session seeds a world of its own; the
 * journals' budget 128 MiB): its peak RSS against the bound docs/security.md names, twice the budget over the RSS at
 * rest.
 *
 * @param {{ requests: number, sessions: number }} size
 */
async function flood({ requests, sessions }) {
  const child = launch(process.execPath, ['dist/bin/call-sandbox.js', '--port', '0', '--quiet'])
  const [, url] = await waitFor(child, /listening on (http:\/\/\S+)/)
  await new Promise((resolve) => setTimeout(resolve, 1_500))
  const atRest = statusMib(child, 'VmRSS')
  const agent = new Agent({ keepAlive: true, maxSockets: FLOOD_CONNECTIONS })
  const pad = 'x'.repeat(60 * 1024)
  let next = 0
  const statuses = new Map()
  await Promise.all(
    Array.from({ length: FLOOD_CONNECTIONS }, async () => {
      while (next < requests) {
        const i = next++
        const { status } = await send(url, {
          path: `/sessions/flood-${i % sessions}/v1/me`,
          headers: { 'X-Pad': `${i}-${pad}` },
          agent,
        })
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
      }
    }),
  )
  agent.destroy()
  const alive = await send(url, { path: '/_sandbox/live' })
  const metrics = await fetch(`${url}/_sandbox/metrics`).then((response) => response.text())
  const journal = Number(/^call_sandbox_journal_bytes (\d+)$/m.exec(metrics)?.[1]) / 1024 / 1024
  const bound = 2 * 128 + atRest
  const peak = statusMib(child, 'VmHWM')
  console.log(
    `flood of ${requests.toLocaleString('en')} requests with a 60 KiB header over ${sessions} sessions, ${FLOOD_CONNECTIONS} keep-alive connections: RSS ${atRest.toFixed(0)} MiB at rest, peak ${peak.toFixed(0)} MiB (bound, twice the budget over the RSS at rest: ${bound.toFixed(0)} MiB, ${peak <= bound ? 'met' : 'missed'}), ${statusMib(child, 'VmRSS').toFixed(0)} MiB after; journals ${journal.toFixed(0)} MiB of 128; statuses ${JSON.stringify(Object.fromEntries(statuses))}; alive after: ${alive.status}`,
  )
  child.kill('SIGKILL')
}

async function metricsSize() {
  const { url, child } = await serve([])
  for (let i = 0; i < METRIC_NAMES; i += 20) {
    await Promise.all(
      Array.from({ length: 20 }, (_, j) => send(url, { path: `/sessions/name-${i + j}/v1/me`, headers: {} })),
    )
  }
  const metrics = await send(url, { path: '/_sandbox/metrics' })
  console.log(
    `metrics after ${METRIC_NAMES.toLocaleString('en')} session names: ${((metrics.bytes ?? 0) / 1024).toFixed(0)} KiB (status ${metrics.status}); RSS ${statusMib(child, 'VmRSS').toFixed(0)} MiB, peak ${statusMib(child, 'VmHWM').toFixed(0)} MiB (each name seeds a world; those pushed out of memory stay until V8's next full collection: docs/security.md)`,
  )
  child.kill('SIGKILL')
}

async function otherOrigin() {
  const { url, child } = await serve([])
  const page = { Origin: 'http://evil.example' }
  const journal = await send(url, { path: '/_sandbox/requests', headers: page })
  // A form or a fetch without a body needs no preflight: it carries no Content-Type the sandbox would refuse.
  const reset = await send(url, { method: 'POST', path: '/_sandbox/reset', headers: page })
  const rebound = await send(url, { path: '/_sandbox/requests', headers: { Host: 'attacker.example' } })
  const api = await send(url, {
    path: '/v1/me',
    headers: { ...page, Authorization: 'Bearer sk_sandbox_all' },
  })
  /** @param {Answer} answer */
  const readable = (answer) =>
    `${answer.status}${answer.headers?.['access-control-allow-origin'] ? `, Access-Control-Allow-Origin: ${answer.headers['access-control-allow-origin']}` : ''}`
  console.log(`a page of another origin: reads the journal: ${readable(journal)}`)
  console.log(`a page of another origin: resets the world with a POST that needs no preflight: ${readable(reset)}`)
  console.log(`a rebound host name (Host: attacker.example) reads the journal: ${readable(rebound)}`)
  console.log(`a page of another origin reads the API with a key: ${readable(api)}`)
  child.kill('SIGKILL')
}

try {
  await otherOrigin()
  await metricsSize()
  for (const size of FLOODS) await flood(size)
  await longPaths()
} finally {
  killChildren()
}
