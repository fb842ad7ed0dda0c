// 1. The standalone server under 20 concurrent connections, GET /v1/calls?limit=50, against Stoplight Prism serving
// the sandbox's own document, Mockoon CLI and WireMock (one route of the same bytes; WireMock without its request
// journal, and again with one kept to as many requests as the sandbox's, like for like), plain Express and plain
// node:http (the floor), and node:http asking msw's getResponse for one handler of the same bytes: each in a process
// of its own, the load generator in this one. Rounds are interleaved (A, B, …, B, A), after a warm-up that also fills
// the command's journal (1,000 requests), so that every round is measured with the journal full. Each contender is
// compared by the median of its rounds, WireMock by its best: its JIT keeps compiling in the first rounds. Against
// WireMock the command's best round is shown too, best against best.
//
//   node bench/standalone.mjs                   all of them
//   BENCH_CONTENDERS=wiremock,node-http node bench/standalone.mjs
//   BENCH_ROUNDS=5 BENCH_ROUND_MS=2000 …       rounds and their length
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { launch, stop, waitFor } from './children.mjs'
import { loadGenerator } from './load.mjs'
import { median } from './median.mjs'
import {
  checkUpstreamReply,
  installPeers,
  startMockoon,
  startNodeContender,
  startPrism,
  startWireMock,
} from './peers.mjs'
import {
  AUTH,
  benchFigure,
  CLI,
  CONNECTIONS,
  kilobytes,
  PAGE,
  perSecond,
  removeTempDir,
  row,
  spread,
  tempDir,
} from './shared.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 2_000)
const WARM_UP_MS = 3_000
/** @type {string[] | undefined} */
const only = process.env.BENCH_CONTENDERS?.split(',')
/** @param {string} name */
const wanted = (name) => !only || only.includes(name)

await benchFigure('standalone', async () => {
  /** @type {('@mockoon/cli' | 'wiremock')[]} */
  const peers = []
  if (wanted('mockoon')) peers.push('@mockoon/cli')
  if (wanted('wiremock') || wanted('wiremock-journal')) peers.push('wiremock')
  if (peers.length > 0) await installPeers(peers)
  const dir = tempDir('bench-call-sandbox-')
  const headers = { authorization: AUTH }
  const cli = launch(process.execPath, [CLI, '--port', '0', '--quiet'])
  const [, sandboxUrl = ''] = await waitFor(cli, /listening on (\S+)/)
  /** @param {string} path @param {RequestInit} [init] */
  const fetched = async (path, init) => {
    const response = await fetch(new URL(path, sandboxUrl), init)
    const bytes = Buffer.from(await response.arrayBuffer())
    if (response.status !== 200) throw new Error(`call-sandbox answered ${path} with ${response.status}: ${bytes}`)
    return bytes
  }
  const body = await fetched(PAGE, { headers })
  const bodyFile = join(dir, 'page.json')
  writeFileSync(bodyFile, body)
  // The journal WireMock is given to compare like for like: as many requests as the sandbox's own keeps.
  const { data: health } = JSON.parse((await fetched('/_sandbox/health')).toString('utf8'))
  const journalCapacity = Number(health.journal.capacity)
  const documentFile = join(dir, 'openapi.json')
  writeFileSync(documentFile, await fetched('/openapi.json'))

  // Any length of the sandbox's page: its clock runs, and its live calls' durations grow a digit now and then.
  /** @type {import('./peers.mjs').Contender} */
  const sandbox = {
    name: 'call-sandbox',
    child: cli,
    url: sandboxUrl,
    output: () => cli.output,
    baseline: () => '',
    goal: '',
  }
  /** @type {[string, () => Promise<import('./peers.mjs').Contender>][]} */
  const starts = [
    ['prism', () => startPrism(documentFile)],
    ['mockoon', () => startMockoon(dir, body)],
    ['wiremock', () => startWireMock(dir, body)],
    ['wiremock-journal', () => startWireMock(dir, body, journalCapacity)],
    ['express', () => startNodeContender('express', bodyFile, body)],
    ['node-http', () => startNodeContender('node-http', bodyFile, body)],
    ['msw-get-response', () => startNodeContender('msw-get-response', bodyFile, body)],
  ]
  const others = await Promise.all(starts.filter(([name]) => wanted(name)).map(([, start]) => start()))
  const contenders = [sandbox, ...others]
  /** @type {Map<import('./peers.mjs').Contender, number>} */
  const answered = new Map()
  for (const contender of contenders) answered.set(contender, await checkUpstreamReply(contender, headers))

  const load = await loadGenerator()
  const measured = contenders.map((contender) => ({
    contender,
    client: load.client(contender.url),
    /** @type {number[]} */
    rates: [],
  }))
  /** @param {(typeof measured)[number]} one @param {number} ms */
  const round = async ({ contender, client }, ms) => {
    const { rate, failed, bytes } = await client.round(PAGE, headers, ms)
    if (failed > 0) throw new Error(`${contender.name}: ${failed} answers were not 200`)
    if (contender.bytes !== undefined && bytes !== contender.bytes)
      throw new Error(`${contender.name}: an answer of ${bytes} bytes, not ${contender.bytes}`)
    return rate
  }
  // A longer warm-up than the rounds: WireMock's JVM compiles its hot paths as it goes.
  for (const one of measured) await round(one, WARM_UP_MS)
  for (let i = 0; i < ROUNDS; i++) {
    const order = i % 2 === 0 ? measured : [...measured].reverse()
    for (const one of order) one.rates.push(await round(one, ROUND_MS))
  }
  for (const { client } of measured) await client.close()
  for (const contender of contenders) await stop(contender.child)
  removeTempDir(dir)

  for (const { contender, rates } of measured) spread(`standalone, ${contender.name}`, rates, perSecond)
  /** @param {(typeof measured)[number]} one */
  const rate = ({ contender, rates }) => (contender.rate === 'best' ? Math.max(...rates) : median(rates))
  const [ours, ...theirs] = measured
  if (!ours) return
  const what = `standalone: GET ${PAGE}, ${CONNECTIONS} connections (${load.name}), ${kilobytes(body.length)}, the journal full: call-sandbox CLI`
  for (const other of theirs) {
    const baseline = `${other.contender.baseline(answered.get(other.contender) ?? 0)}: ${perSecond(rate(other))}`
    row(what, perSecond(rate(ours)), baseline, rate(ours) / rate(other), other.contender.goal)
    // Best against best too, as the figure's issue measured both (the command's best round, WireMock's third): the
    // median above is the stricter, one contender's middle round against the other's top one.
    if (other.contender.rate !== 'best') continue
    const best = Math.max(...ours.rates)
    row(`${what}, its best round`, perSecond(best), baseline, best / rate(other), other.contender.goal)
  }
})
