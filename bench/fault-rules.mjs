// What fault rules cost a request that meets none of them: the same requests answered in process (`answer`, no
// msw) by one sandbox, in interleaved rounds with ten rules that never match (other paths, prefixes, methods, keys)
// and with none, as CPU time per request. One sandbox, so both sides pay for the same heap. In a fleet each API request also asks the store
// (one script), which this does not measure.
//
// node bench/fault-rules.mjs   (after npm run build)
import { answer, createSandbox } from 'call-sandbox'
import { median } from './median.mjs'
import { benchFigure, NOW, PAGE, row } from './shared.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 11)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1_000)
const KEY = { Authorization: 'Bearer sk_sandbox_all' }

/** Ten rules, none of which meets `GET /v1/me` or `GET /v1/calls` with sk_sandbox_all. @type {import('call-sandbox').FaultRuleInput[]} */
const RULES = [
  { path: '/v1/leads', status: 500, times: null },
  { path: '/v1/appointments*', status: 503, times: null },
  { path: '/v1/me', method: 'POST', status: 500, times: null },
  { path: '/v1/me', key: 'sk_sandbox_org2', status: 429, times: null },
  { path: '/v1/calls', key: 'sk_sandbox_readonly', delay_ms: 100, times: null },
  { path: '/v1/calls/*', error: 'network', times: null },
  { path: '/v1/contacts*', method: 'POST', status: 422, times: null },
  { path: '/v2/*', status: 500, times: null },
  { path: '/v1/mee', status: 500, times: null },
  { path: '/v1/calls', method: 'POST', status: 500, times: null },
]

/**
 * CPU microseconds per request of `count` GETs of `path`.
 * @param {import('call-sandbox').SandboxWithHandlers} sandbox @param {string} path @param {number} count
 */
async function cpuPerRequest(sandbox, path, count) {
  const started = process.cpuUsage()
  for (let i = 0; i < count; i++) {
    const response = await answer(sandbox, new Request(`http://bench.local${path}`, { headers: KEY }))
    if (response?.status !== 200) throw new Error(`${path} answered ${response?.status}`)
    await response.arrayBuffer()
  }
  const { user, system } = process.cpuUsage(started)
  return (user + system) / count
}

await benchFigure('fault-rules', async () => {
  const options = { now: NOW, journalSize: 10 }
  const sandbox = createSandbox(options)
  await sandbox.ready
  const withNone = async (/** @type {string} */ path) => {
    await sandbox.faults.clear()
    return cpuPerRequest(sandbox, path, REQUESTS)
  }
  const withTen = async (/** @type {string} */ path) => {
    await sandbox.faults.clear()
    for (const rule of RULES) await sandbox.faults.add(rule)
    const cpu = await cpuPerRequest(sandbox, path, REQUESTS)
    if ((await sandbox.faults.list()).some((rule) => rule.hits > 0))
      throw new Error('A rule met a request it should not.')
    return cpu
  }
  for (const path of ['/v1/me', PAGE]) {
    await withNone(path)
    await withTen(path)
    /** @type {number[]} */
    const without = []
    /** @type {number[]} */
    const withRules = []
    for (let round = 0; round < ROUNDS; round++) {
      const pair = [async () => without.push(await withNone(path)), async () => withRules.push(await withTen(path))]
      for (const measure of round % 2 === 0 ? pair : pair.reverse()) await measure()
    }
    row(
      `GET ${path} in process (answer), ten fault rules that match none: CPU a request (median of ${ROUNDS} rounds of ${REQUESTS})`,
      `${median(withRules).toFixed(1)} µs`,
      `no rules: ${median(without).toFixed(1)} µs`,
      median(withRules) / median(without),
      ['<=', 1.1],
    )
  }
  // The check alone, without the rest of an answer: ten rules against a request none of them meets.
  await withTen('/v1/me')
  const checks = 200_000
  const started = process.cpuUsage()
  for (let i = 0; i < checks; i++) await sandbox.faults.take({ method: 'GET', path: '/v1/me', key: 'sk_sandbox_all' })
  const { user, system } = process.cpuUsage(started)
  row(
    'the rule check alone (sandbox.faults.take), ten rules that match none',
    `${(((user + system) * 1000) / checks).toFixed(0)} ns`,
    '',
    undefined,
    'reported',
  )
  sandbox.stop()
})
