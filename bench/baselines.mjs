// Issue 9's figures (npm run bench runs it after run.mjs and sessions.mjs),
// each against a contender measured in the same run, so that the ratios
// compare on any machine. The machine is small and noisy: every figure warms
// up first, alternates its contenders (A, B, B, A, ...) rather than running
// all of A and then all of B, and takes medians.
//
//   1. the standalone server, GET /v1/calls?limit=50 under 20 concurrent connections, against Stoplight Prism
//      serving the sandbox's own document, Mockoon CLI and WireMock (one route of the same bytes), plain Express
//      and plain node:http (the floor), and node:http asking msw's getResponse for one handler of the same bytes
//   2. in process, GET /v1/calls?limit=50 through msw's setupServer, against a bare msw handler of the same bytes,
//      on msw 2 (Node 20) and msw 3 (Node 24)
//   3. import call-sandbox/node and seed the default world, fresh process, against import('msw/node'),
//      on msw 2 (Node 20) and msw 3 (Node 24)
//   4. the CLI's start-up until it listens against a bare node start on the same binary: Node 24 from its
//      compile cache, and Node 20 (which has none); its RSS at idle
//   5. 100,000 calls: seed, one write, reset() after 10 writes and RSS, against the default world
//   6. a consumer's vitest suite of 9 files on setupSandboxServer, against the same on a bare msw handler
//
// Mockoon CLI and WireMock (its standalone jar, run with the machine's java)
// are installed from the npm registry into node_modules/.cache/bench-peers on
// the first run. Child processes (servers, fresh imports, worlds) are killed
// and temporary files removed at the end, on an error too. This file imports
// only Node's own modules at the top, so that it can run itself as a child
// (see `mode`).
import { randomUUID } from 'node:crypto'
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { killChildren, launch, stop, waitFor } from './children.mjs'
import { median } from './median.mjs'
import { freePort } from './servers.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
// The built package as a consumer gets it: its entries as its `exports` resolve
// them (the package refers to itself by name), its command as its `bin` names it.
const ENTRY = import.meta.resolve('call-sandbox')
const NODE_ENTRY = import.meta.resolve('call-sandbox/node')
const CLI = join(ROOT, JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).bin['call-sandbox'])
const NOW = '2026-11-20T12:00:00Z'
const AUTH = 'Bearer sk_sandbox_all'
const PAGE = '/v1/calls?limit=50'
const CONNECTIONS = 20
// Figure 1's peers, pinned: the environment file below is written for this Mockoon's data format.
const PEERS_DIR = join(ROOT, 'node_modules/.cache/bench-peers')
const PEERS = { '@mockoon/cli': '9.9.0', wiremock: '3.13.2' }
const MOCKOON_DATA_FORMAT = 33 // Mockoon's `lastMigration`: the format of its environment files

// ---------------------------------------------------------------- helpers

const temporary = new Set()
function cleanUp() {
  killChildren()
  for (const path of temporary) rmSync(path, { recursive: true, force: true })
  temporary.clear()
}

/**
 * A temp folder, removed at the end. Not named call-sandbox-*: a test run going on beside the bench would count it as
 * its own leftover.
 */
function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  temporary.add(dir)
  return dir
}

function removeTempDir(dir) {
  rmSync(dir, { recursive: true, force: true })
  temporary.delete(dir)
}

/** The whole run of a command: its standard output; rejects unless it exits 0. */
async function run(command, args, options = {}) {
  const child = launch(command, args, options)
  const { code, signal } = await child.exited
  if (code !== 0) throw new Error(`${command} ${args.join(' ')}: ${code ?? signal}\n${child.output}`)
  return child.stdoutText
}

function rssOf(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m)
  return Number(line[1]) * 1024
}

/** The samples behind a median, on stderr: how noisy the run was. */
function spread(what, samples, format) {
  const sorted = [...samples].sort((a, b) => a - b)
  process.stderr.write(
    `  ${what}: median ${format(median(sorted))}, ${sorted.length} samples from ${format(sorted[0])} to ${format(sorted.at(-1))}\n`,
  )
}

const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`
const millis = (ms) => `${ms.toFixed(2)} ms`
const kilobytes = (bytes) => `${(bytes / 1024).toFixed(bytes < 10_240 ? 1 : 0)} KB`
const megabytes = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MB`
const perSecond = (rate) => `${Math.round(rate).toLocaleString('en-US')} req/s`

const rows = []
/** A row: `ratio` is value over baseline; `goal` is [comparison, bound] on the ratio, or a text. */
function row(what, value, baseline, ratio, goal = '') {
  let goalText = goal
  if (Array.isArray(goal)) {
    const [comparison, bound, unit = 'x'] = goal
    const met = comparison === '<=' ? ratio <= bound : ratio >= bound
    goalText = `${comparison} ${bound}${unit} (${met ? 'met' : 'missed'})`
  }
  rows.push({ what, value, baseline, ratio: ratio === undefined ? '' : `${ratio.toFixed(2)}x`, goal: goalText })
}

let node24
/** The Node 24 binary (scripts/node24.mjs installs it on its first call) and its version. */
async function nodeTwentyFour() {
  if (!node24) {
    const path = (await run(process.execPath, [join(ROOT, 'scripts/node24.mjs')])).trim()
    node24 = { path, version: (await run(path, ['--version'])).trim() }
  }
  return node24
}

/**
 * A major of msw and the node it runs on, checked by asking the node which msw
 * `import 'msw'` reaches: msw 2 is the project's `msw` on this node; msw 3
 * needs Node 22.12, and bench/msw3.mjs points every import of 'msw' (the
 * built package's too) at the `msw3` alias.
 */
async function mswRuntime(major) {
  let runtime = { node: process.execPath, flags: [], on: `Node ${process.version}` }
  if (major === 3) {
    const { path, version } = await nodeTwentyFour()
    runtime = {
      node: path,
      flags: ['--import', pathToFileURL(join(ROOT, 'bench/msw3.mjs')).href],
      on: `Node ${version}`,
    }
  }
  const script =
    "import { readFileSync } from 'node:fs'; console.log(JSON.parse(readFileSync(new URL(import.meta.resolve('msw/package.json')), 'utf8')).version)"
  const version = (await run(runtime.node, [...runtime.flags, '--input-type=module', '-e', script])).trim()
  if (!version.startsWith(`${major}.`))
    throw new Error(`import 'msw' reached msw ${version} on ${runtime.on}, not msw ${major}.`)
  return { ...runtime, label: `msw ${version}, ${runtime.on}` }
}

// ---------------------------------------------------------------- the run

async function main() {
  process.on('exit', cleanUp)
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      cleanUp()
      process.exit(130)
    })
  }
  const started = performance.now()
  process.stderr.write(`baselines: call-sandbox/node is ${fileURLToPath(NODE_ENTRY)}, the CLI ${CLI}\n`)
  const phase = (name) => process.stderr.write(`baselines: ${name} (${seconds(performance.now() - started)} in)\n`)
  try {
    // BENCH_ONLY=2,3 runs only those figures
    const only = process.env.BENCH_ONLY?.split(',')
    const figures = [
      ['3', 'import and seed, fresh processes', importFigure],
      ['4', 'CLI start-up and RSS', startUpFigure],
      ['2', 'in process, through msw', inProcessFigure],
      ['1', 'standalone servers under load', serverFigure],
      ['5', '100,000 calls', largeWorldFigure],
      ['6', 'a consumer suite', consumerFigure],
    ]
    for (const [number, name, figure] of figures) {
      if (only && !only.includes(number)) continue
      phase(`${number}. ${name}`)
      await figure()
    }
    phase('done')
  } finally {
    cleanUp()
  }
  console.table(rows)
}

// 1. The standalone server under 20 concurrent connections, against six others, each in its own process.
async function serverFigure() {
  await installPeers()
  const dir = tempDir('bench-call-sandbox-')
  const headers = { authorization: AUTH }
  const cli = launch(process.execPath, [CLI, '--port', '0', '--quiet'])
  const [, sandboxUrl] = await waitFor(cli, /listening on (\S+)/)
  const fetched = async (path, init) => {
    const response = await fetch(new URL(path, sandboxUrl), init)
    const bytes = Buffer.from(await response.arrayBuffer())
    if (response.status !== 200) throw new Error(`call-sandbox answered ${path} with ${response.status}: ${bytes}`)
    return bytes
  }
  const body = await fetched(PAGE, { headers })
  const bodyFile = join(dir, 'page.json')
  writeFileSync(bodyFile, body)
  const documentFile = join(dir, 'openapi.json')
  writeFileSync(documentFile, await fetched('/openapi.json'))

  // Any length of the sandbox's page: its clock runs, and its live calls' durations grow a digit now and then.
  const sandbox = { name: 'call-sandbox', child: cli, url: sandboxUrl, output: () => cli.output }
  const others = await Promise.all([
    startPrism(documentFile),
    startMockoon(dir, body),
    startWireMock(dir, body),
    startNodeContender('Express', 'express', bodyFile, body),
    startNodeContender('node:http', 'node-http', bodyFile, body),
    startNodeContender('node:http + msw getResponse', 'msw-get-response', bodyFile, body),
  ])
  const contenders = [sandbox, ...others]
  for (const contender of contenders) contender.answered = await checkUpstreamReply(contender, headers)

  const load = await loadGenerator()
  for (const contender of contenders) {
    contender.client = load.client(contender.url)
    contender.rates = []
  }
  const round = async (contender, ms) => {
    const { rate, failed, bytes } = await contender.client.round(PAGE, headers, ms)
    if (failed > 0) throw new Error(`${contender.name}: ${failed} answers were not 200`)
    if (contender.bytes !== undefined && bytes !== contender.bytes)
      throw new Error(`${contender.name}: an answer of ${bytes} bytes, not ${contender.bytes}`)
    return rate
  }
  // A longer warm-up than the rounds: WireMock's JVM compiles its hot paths as it goes.
  for (const contender of contenders) await round(contender, 2_000)
  for (let i = 0; i < 5; i++) {
    const order = i % 2 === 0 ? contenders : [...contenders].reverse()
    for (const contender of order) contender.rates.push(await round(contender, 1_500))
  }
  for (const contender of contenders) await contender.client.close()
  for (const contender of contenders) await stop(contender.child)
  removeTempDir(dir)

  for (const contender of contenders) spread(`standalone, ${contender.name}`, contender.rates, perSecond)
  const rate = (contender) => median(contender.rates)
  const what = `standalone: GET ${PAGE}, ${CONNECTIONS} connections (${load.name}), ${kilobytes(body.length)}: call-sandbox CLI`
  for (const other of others)
    row(
      what,
      perSecond(rate(sandbox)),
      `${other.baseline(other.answered)}: ${perSecond(rate(other))}`,
      rate(sandbox) / rate(other),
      other.goal,
    )
}

/** Stoplight Prism mocking the sandbox's own document: it answers with an example it generates from the schema. */
async function startPrism(documentFile) {
  const port = await freePort()
  const bin = join(ROOT, 'node_modules/@stoplight/prism-cli/dist/index.js')
  // -v warn: no line per request, as the sandbox's --quiet
  const child = launch(process.execPath, [bin, 'mock', documentFile, '--port', String(port), '-v', 'warn'])
  return {
    name: 'Prism',
    child,
    url: `http://127.0.0.1:${port}/`,
    output: () => child.output,
    baseline: (bytes) =>
      `Prism mock of the sandbox's document (its generated example, ${kilobytes(bytes)}, not the same bytes)`,
    goal: ['>=', 2],
  }
}

/** Mockoon CLI: one route sending the same bytes, its templating off, without the admin API the bench does not use. */
async function startMockoon(dir, body) {
  const port = await freePort()
  const response = {
    uuid: randomUUID(),
    default: true,
    statusCode: 200,
    headers: [{ key: 'Content-Type', value: 'application/json' }],
    bodyType: 'INLINE',
    body: body.toString('utf8'),
    disableTemplating: true,
  }
  const route = { uuid: randomUUID(), type: 'http', method: 'get', endpoint: 'v1/calls', responses: [response] }
  const environment = {
    uuid: randomUUID(),
    lastMigration: MOCKOON_DATA_FORMAT,
    name: 'bench',
    port,
    hostname: '127.0.0.1',
    routes: [route],
    rootChildren: [{ type: 'route', uuid: route.uuid }],
  }
  const environmentFile = join(dir, 'mockoon-environment.json')
  writeFileSync(environmentFile, JSON.stringify(environment))
  // Mockoon logs a line for every request and has no flag against it: the
  // lines go to a file, not through the bench (the load generator) as the
  // other contenders' output does. Its home is the temp folder: it makes
  // ~/.mockoon-cli even without its log file.
  const logFile = join(dir, 'mockoon.log')
  const log = openSync(logFile, 'w')
  const bin = join(PEERS_DIR, 'node_modules/@mockoon/cli/bin/run.js')
  const args = [bin, 'start', '--data', environmentFile, '--disable-log-to-file', '--disable-admin-api']
  const child = launch(process.execPath, args, { env: { ...process.env, HOME: dir }, stdio: ['ignore', log, log] })
  closeSync(log)
  return {
    name: 'Mockoon',
    child,
    url: `http://127.0.0.1:${port}/`,
    bytes: body.length,
    output: () => readFileSync(logFile, 'utf8').slice(-8_000),
    baseline: () => `Mockoon CLI ${PEERS['@mockoon/cli']}, one route of the same bytes`,
    goal: ['>=', 2],
  }
}

/**
 * WireMock standalone, the npm package's jar on the machine's java, one stub
 * of the same bytes, set up as its documentation advises for load: no request
 * journal, no log line per request (--disable-request-logging, "useful when
 * performance testing"), Jetty's default 25 container threads for the 20
 * connections. No templating and no gzip, which the bytes do not need, and a
 * Content-Length, as the others send, rather than its default chunks.
 */
async function startWireMock(dir, body) {
  const root = join(dir, 'wiremock')
  mkdirSync(join(root, 'mappings'), { recursive: true })
  const stub = {
    request: { method: 'GET', urlPath: '/v1/calls' },
    response: { status: 200, headers: { 'Content-Type': 'application/json' }, body: body.toString('utf8') },
  }
  writeFileSync(join(root, 'mappings', 'calls.json'), JSON.stringify(stub))
  const jarDir = join(PEERS_DIR, 'node_modules/wiremock/build')
  const jar = readdirSync(jarDir).find((name) => /^wiremock-standalone-.*\.jar$/.test(name))
  if (!jar) throw new Error(`no wiremock-standalone-*.jar in ${jarDir}`)
  const port = await freePort()
  const java = launch('java', ['-version'])
  await java.exited
  const javaVersion = java.output.match(/version "([^"]+)"/)?.[1] ?? 'unknown'
  const args = [
    '-jar',
    join(jarDir, jar),
    '--port',
    String(port),
    '--bind-address',
    '127.0.0.1',
    '--root-dir',
    root,
    '--no-request-journal',
    '--disable-request-logging',
    '--disable-banner',
    '--container-threads',
    '25',
    '--disable-response-templating',
    '--disable-gzip',
    '--use-chunked-encoding',
    'never',
  ]
  const child = launch('java', args)
  return {
    name: 'WireMock',
    child,
    url: `http://127.0.0.1:${port}/`,
    bytes: body.length,
    output: () => child.output,
    baseline: () => `WireMock ${PEERS.wiremock} standalone (java ${javaVersion}), one stub of the same bytes`,
    goal: ['>=', 0.75],
  }
}

/** A contender this file serves as a child of its own (see serveContender). */
async function startNodeContender(name, which, bodyFile, body) {
  const child = launch(process.execPath, [import.meta.filename, which, bodyFile])
  const [, url] = await waitFor(child, /listening on (\S+)/)
  const baselines = {
    express: ['plain Express sending the same bytes', 'none (the floor)'],
    'node-http': ['plain node:http sending the same bytes', 'none (the floor)'],
    'msw-get-response': [
      "node:http asking msw's getResponse for one http.get handler of the same bytes",
      'none (reported)',
    ],
  }
  const [baseline, goal] = baselines[which]
  return { name, child, url, bytes: body.length, output: () => child.output, baseline: () => baseline, goal }
}

/**
 * Waits until a contender answers (Prism, Mockoon and WireMock do not print when they listen); rejects unless its
 * answer is a 200 of the bytes it should send.
 */
async function checkUpstreamReply(contender, headers) {
  const url = new URL(PAGE, contender.url)
  for (let tries = 0; ; tries++) {
    const answer = await fetch(url, { headers }).then(
      async (response) => ({ status: response.status, bytes: (await response.arrayBuffer()).byteLength }),
      () => undefined,
    )
    if (answer) {
      if (answer.status !== 200 || (contender.bytes !== undefined && answer.bytes !== contender.bytes)) {
        const expected = contender.bytes === undefined ? '' : ` of ${contender.bytes} bytes`
        throw new Error(
          `${contender.name} answered ${PAGE} with ${answer.status} and ${answer.bytes} bytes, not 200${expected}:\n${contender.output()}`,
        )
      }
      return answer.bytes
    }
    if (tries > 300 || contender.child.exitCode !== null)
      throw new Error(`${contender.name} did not start:\n${contender.output()}`)
    await sleep(200)
  }
}

/**
 * Installs figure 1's peers (PEERS) in PEERS_DIR unless they are there: outside node_modules/.bin, where their commands
 * would shadow the project's.
 */
async function installPeers() {
  const installed = (name) => {
    const manifest = join(PEERS_DIR, 'node_modules', name, 'package.json')
    return existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).version === PEERS[name]
  }
  if (Object.keys(PEERS).every(installed)) return
  const specs = Object.entries(PEERS).map(([name, version]) => `${name}@${version}`)
  process.stderr.write(`baselines: installing ${specs.join(', ')} in ${PEERS_DIR}\n`)
  // one command for all: an install with --no-save removes what its package.json does not list
  await run('npm', [
    'install',
    '--prefix',
    PEERS_DIR,
    '--no-save',
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
    ...specs,
  ])
}

/** A small load generator: CONNECTIONS requests in flight, each connection kept alive, for a fixed time. */
async function loadGenerator() {
  let undici
  try {
    undici = await import('undici')
  } catch {}
  const inFlight = async (ms, one) => {
    let done = 0
    let failed = 0
    let bytes = 0
    const start = performance.now()
    const end = start + ms
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < end) {
          const answer = await one()
          bytes = answer.bytes
          if (answer.status === 200) done++
          else failed++
        }
      }),
    )
    return { rate: done / ((performance.now() - start) / 1000), failed, bytes }
  }
  if (undici) {
    return {
      name: 'undici Pool',
      client(url) {
        const pool = new undici.Pool(new URL(url).origin, { connections: CONNECTIONS, pipelining: 1 })
        return {
          round: (path, headers, ms) =>
            inFlight(ms, async () => {
              const { statusCode, body } = await pool.request({ path, method: 'GET', headers })
              return { status: statusCode, bytes: (await body.arrayBuffer()).byteLength }
            }),
          close: () => pool.close(),
        }
      },
    }
  }
  const http = await import('node:http')
  return {
    name: 'node:http keep-alive',
    client(url) {
      const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS })
      const target = new URL(url)
      return {
        round: (path, headers, ms) =>
          inFlight(
            ms,
            () =>
              new Promise((resolve, reject) => {
                const request = http.get(
                  { host: target.hostname, port: target.port, path, headers, agent },
                  (response) => {
                    let bytes = 0
                    response.on('data', (chunk) => (bytes += chunk.length))
                    response.on('end', () => resolve({ status: response.statusCode, bytes }))
                    response.on('error', reject)
                  },
                )
                request.on('error', reject)
              }),
          ),
        close: async () => agent.destroy(),
      }
    },
  }
}

/**
 * A contender of figure 1, as a child, sending the body file's bytes: plain
 * Express, plain node:http, or node:http turning each request into a Fetch
 * `Request` for msw's `getResponse` and writing its `Response` out as the
 * sandbox's server does (src/server/fetchExchange.ts).
 */
async function serveContender(which, bodyFile) {
  const body = readFileSync(bodyFile)
  const listening = (server) => console.log(`listening on http://127.0.0.1:${server.address().port}/`)
  if (which === 'express') {
    const { default: express } = await import('express')
    const app = express()
    app.disable('x-powered-by') // as the sandbox's app
    app.set('etag', false)
    app.get('/v1/calls', (_request, response) => {
      response.type('application/json').send(body)
    })
    const server = app.listen(0, '127.0.0.1', () => listening(server))
    return
  }
  const { createServer: createHttpServer } = await import('node:http')
  if (which === 'node-http') {
    const server = createHttpServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body)
    })
    server.listen(0, '127.0.0.1', () => listening(server))
    return
  }
  const { getResponse, http, HttpResponse } = await import('msw')
  const handlers = [
    http.get('*/v1/calls', () => new HttpResponse(body, { headers: { 'content-type': 'application/json' } })),
  ]
  let origin
  const server = createHttpServer(async (request, response) => {
    const headers = new Headers()
    for (let i = 0; i < request.rawHeaders.length; i += 2)
      headers.append(request.rawHeaders[i], request.rawHeaders[i + 1])
    const answer = await getResponse(
      handlers,
      new Request(new URL(request.url, origin), { method: request.method, headers }),
    )
    if (!answer) {
      response.writeHead(404).end()
      return
    }
    response.statusCode = answer.status
    answer.headers.forEach((value, name) => {
      response.setHeader(name, value)
    })
    response.end(Buffer.from(await answer.arrayBuffer()))
  })
  server.listen(0, '127.0.0.1', () => {
    origin = `http://127.0.0.1:${server.address().port}`
    listening(server)
  })
}

// 2. In process, in a child per major of msw (msw 3 on Node 24): the sandbox's
// handlers in msw's setupServer and a real fetch, against a bare msw handler on
// the same URL returning the same bytes.
async function inProcessFigure() {
  for (const major of [2, 3]) {
    const { node, flags, label } = await mswRuntime(major)
    const { ours, theirs, bytes } = JSON.parse(await run(node, [...flags, import.meta.filename, 'in-process']))
    spread(`in process, sandbox, ${label}`, ours, perSecond)
    spread(`in process, bare msw, ${label}`, theirs, perSecond)
    row(
      `in process, ${label}: GET ${PAGE} through msw setupServer + fetch (${kilobytes(bytes)})`,
      perSecond(median(ours)),
      `bare msw http.get returning the same bytes (a Buffer): ${perSecond(median(theirs))}`,
      median(ours) / median(theirs),
      ['>=', 0.85],
    )
  }
}

/** Figure 2, as a child: both contenders' rates, printed as JSON. */
async function inProcessRates() {
  const { setupServer } = await import('msw/node')
  const { http, HttpResponse } = await import('msw')
  const { createSandbox } = await import(ENTRY)
  const sandbox = createSandbox({ seed: 1, now: NOW })
  await sandbox.ready
  const server = setupServer(...sandbox.handlers)
  server.listen({ onUnhandledRequest: 'error' })
  try {
    const url = `https://api.example.com${PAGE}`
    const get = async () => {
      const response = await fetch(url, { headers: { Authorization: AUTH } })
      if (response.status !== 200) throw new Error(`${url}: ${response.status}`)
      return response.arrayBuffer()
    }
    const body = Buffer.from(await get())
    const bare = [
      http.get(
        'https://api.example.com/v1/calls',
        () => new HttpResponse(body, { headers: { 'content-type': 'application/json' } }),
      ),
    ]
    const batch = async (handlers, requests = 200) => {
      server.resetHandlers(...handlers)
      const start = performance.now()
      for (let i = 0; i < requests; i++) {
        if ((await get()).byteLength !== body.length) throw new Error(`${url}: not the ${body.length} bytes`)
      }
      return requests / ((performance.now() - start) / 1000)
    }
    await batch(sandbox.handlers, 300)
    await batch(bare, 300)
    const ours = []
    const theirs = []
    for (let i = 0; i < 16; i++) {
      if (i % 2 === 0) {
        ours.push(await batch(sandbox.handlers))
        theirs.push(await batch(bare))
      } else {
        theirs.push(await batch(bare))
        ours.push(await batch(sandbox.handlers))
      }
    }
    process.stdout.write(JSON.stringify({ ours, theirs, bytes: body.length }))
  } finally {
    server.close()
  }
}

// 3. Import and seed in a fresh process, against importing msw/node alone, on
// each major of msw; timed in the child from before the import (node's own
// start, the same for both, left out).
async function importFigure() {
  const sandboxScript = `
    const start = performance.now()
    const { setupSandboxServer } = await import(${JSON.stringify(NODE_ENTRY)})
    const { server, sandbox } = setupSandboxServer({ seed: 1, now: ${JSON.stringify(NOW)} })
    await sandbox.ready
    console.log(performance.now() - start)`
  const mswScript = `
    const start = performance.now()
    await import('msw/node')
    console.log(performance.now() - start)`
  for (const major of [2, 3]) {
    const { node, flags, label } = await mswRuntime(major)
    const fresh = async (script) => Number(await run(node, [...flags, '--input-type=module', '-e', script]))
    const sandbox = []
    const msw = []
    await fresh(sandboxScript) // warm-up: the files in the page cache
    await fresh(mswScript)
    for (let i = 0; i < 7; i++) {
      if (i % 2 === 0) {
        sandbox.push(await fresh(sandboxScript))
        msw.push(await fresh(mswScript))
      } else {
        msw.push(await fresh(mswScript))
        sandbox.push(await fresh(sandboxScript))
      }
    }
    spread(`import + seed, ${label}`, sandbox, seconds)
    spread(`import('msw/node'), ${label}`, msw, seconds)
    row(
      `import call-sandbox/node + seed the default world (README's setupSandboxServer), fresh process, ${label}`,
      seconds(median(sandbox)),
      `import('msw/node') alone, fresh process: ${seconds(median(msw))}`,
      median(sandbox) / median(msw),
      ['<=', 2.5],
    )
  }
}

// 4. The CLI until it listens, against a bare node start on the same binary;
// its RSS a second after it listens. On Node 24 the CLI starts from Node's
// compile cache (bin.ts enables it), in a temp folder of its own which a first
// start, not measured, fills; Node 20 has no compile cache.
async function startUpFigure() {
  const startUp = async ({ node, args, env }) => {
    const start = performance.now()
    const child = launch(node, args, { env: { ...process.env, ...env } })
    await waitFor(child, /listening on/)
    const ms = performance.now() - start
    await sleep(1_000)
    const rss = rssOf(child.pid)
    await stop(child)
    return { ms, rss }
  }
  const { path: node24Path, version: node24Version } = await nodeTwentyFour()
  const compileCache = tempDir('bench-compile-cache-')
  const bareArgs = ['-e', "console.log('listening on nothing'); setInterval(() => {}, 60_000)"]
  // The floor of the stack: an Express app of one route, from the same compile cache.
  const expressArgs = [
    '-e',
    "const app = require('express')(); app.get('/', (q, r) => r.json({})); const server = app.listen(0, '127.0.0.1', () => console.log('listening on ' + server.address().port))",
  ]
  const cliArgs = [CLI, '--port', '0', '--quiet']
  const withCache = { NODE_COMPILE_CACHE: compileCache }
  const pairs = [
    {
      on: `Node ${node24Version}`,
      how: 'from its compile cache',
      cli: { node: node24Path, args: cliArgs, env: withCache, runs: [] },
      bare: { node: node24Path, args: bareArgs, env: withCache, runs: [] },
      express: { node: node24Path, args: expressArgs, env: withCache, runs: [] },
      goal: ['<=', 3],
    },
    {
      on: `Node ${process.version}`,
      how: 'no compile cache there',
      cli: { node: process.execPath, args: cliArgs, runs: [] },
      bare: { node: process.execPath, args: bareArgs, runs: [] },
      goal: 'none (reported)',
    },
  ]
  const order = pairs.flatMap(({ cli, bare, express }) => [bare, cli, ...(express ? [express] : [])])
  for (const contender of order) await startUp(contender) // warm-up; the CLI's first start on Node 24 fills the cache
  if (readdirSync(compileCache).length === 0)
    throw new Error(`The CLI's first start on ${pairs[0].on} left no compile cache in ${compileCache}.`)
  for (let i = 0; i < 5; i++) {
    for (const contender of i % 2 === 0 ? order : [...order].reverse()) contender.runs.push(await startUp(contender))
  }
  removeTempDir(compileCache)
  const ms = ({ runs }) => median(runs.map((one) => one.ms))
  const rss = ({ runs }) => median(runs.map((one) => one.rss))
  for (const { on, how, cli, bare } of pairs) {
    spread(
      `CLI start-up, ${on}, ${how}`,
      cli.runs.map((one) => one.ms),
      seconds,
    )
    spread(
      `bare node start, ${on}`,
      bare.runs.map((one) => one.ms),
      seconds,
    )
    spread(
      `CLI RSS, ${on}`,
      cli.runs.map((one) => one.rss),
      megabytes,
    )
  }
  for (const { on, how, cli, bare, express, goal } of pairs) {
    const what = `call-sandbox CLI start until it listens (default world), ${on}, ${how}`
    row(what, seconds(ms(cli)), `bare node until it prints, ${on}: ${seconds(ms(bare))}`, ms(cli) / ms(bare), goal)
    if (express) {
      spread(
        `plain Express start, ${on}`,
        express.runs.map((one) => one.ms),
        seconds,
      )
      row(
        `plain Express, one route, until it listens, ${on}, ${how}`,
        seconds(ms(express)),
        `bare node until it prints, ${on}: ${seconds(ms(bare))}`,
        ms(express) / ms(bare),
        'none (the floor)',
      )
    }
  }
  const underMegabytes = (value) => `<= 100 MB (${value <= 100 * 1024 * 1024 ? 'met' : 'missed'})`
  for (const { on, cli, bare } of pairs) {
    const what = `call-sandbox CLI RSS at idle, 1 s after it listens (default world), ${on}`
    row(
      what,
      megabytes(rss(cli)),
      `bare node idling: ${megabytes(rss(bare))}`,
      rss(cli) / rss(bare),
      underMegabytes(rss(cli)),
    )
  }
}

// 5. 100,000 calls against the default world, each in a process of its own (its RSS is the world's).
async function largeWorldFigure() {
  const world = async (calls) =>
    JSON.parse(
      await run(process.execPath, [
        '--expose-gc',
        '--max-old-space-size=4096',
        import.meta.filename,
        'world',
        String(calls),
      ]),
    )
  const small = await world(300)
  const large = await world(100_000)
  const perCall = (figures) => figures.seedMs / figures.calls
  const atMost = (value, bound, text) => `<= ${text} (${value <= bound ? 'met' : 'missed'})`
  row(
    'seed 100,000 calls (per call)',
    `${seconds(large.seedMs)} (${millis(perCall(large))} a call)`,
    `default world (${small.calls} calls): ${millis(small.seedMs)} (${millis(perCall(small))} a call)`,
    perCall(large) / perCall(small),
    atMost(large.seedMs, 3000, '3 s'),
  )
  row(
    'one write at 100,000 calls: addContact, a new caller (median of 21)',
    millis(large.addContact),
    `default world: ${millis(small.addContact)}`,
    large.addContact / small.addContact,
    atMost(large.addContact, 1, '1 ms'),
  )
  row(
    'one write at 100,000 calls: addCall from a known caller, who changes (median of 21)',
    millis(large.addKnownCall),
    `default world: ${millis(small.addKnownCall)}`,
    large.addKnownCall / small.addKnownCall,
    atMost(large.addKnownCall, 1, '1 ms'),
  )
  row(
    'reset() after 10 writes at 100,000 calls (median of 5)',
    millis(large.reset),
    `default world: ${millis(small.reset)}`,
    large.reset / small.reset,
    atMost(large.reset, 5, '5 ms'),
  )
  row(
    'RSS of a process holding the 100,000-call world (2 s after a GC, after another)',
    `${megabytes(large.rss)} (heap ${megabytes(large.heap)}; right after the first GC ${megabytes(large.rssAfterGc)})`,
    `default world: ${megabytes(small.rss)} (heap ${megabytes(small.heap)})`,
    large.rss / small.rss,
    atMost(large.rss, 450 * 1024 * 1024, '450 MB'),
  )
}

/** Figure 5, as a child: one world and its writes, printed as JSON. */
async function worldFigures(calls) {
  const { answer, createSandbox } = await import(ENTRY)
  const start = performance.now()
  const sandbox = createSandbox({ now: NOW, calls })
  await sandbox.ready
  const seedMs = performance.now() - start
  const response = await answer(
    sandbox,
    new Request('http://bench.local/v1/contacts?limit=1', { headers: { Authorization: AUTH } }),
  )
  const knownPhone = (await response.json()).data[0].phone
  const timed = async (write, runs = 21) => {
    const samples = []
    for (let i = 0; i < runs; i++) {
      const begin = performance.now()
      await write(i)
      samples.push(performance.now() - begin)
    }
    await sandbox.reset()
    return median(samples)
  }
  await timed((i) => sandbox.addContact({ phone: `+1415556${String(1000 + i)}` }), 5) // warm-up
  const addContact = await timed((i) => sandbox.addContact({ phone: `+1415556${String(1000 + i)}` }))
  const addKnownCall = await timed(() => sandbox.addCall({ caller_phone: knownPhone }))
  const resets = []
  for (let run = 0; run < 5; run++) {
    for (let i = 0; i < 5; i++) await sandbox.addCall()
    for (let i = 0; i < 5; i++) await sandbox.addContact({ phone: `+1415557${String(1000 + i)}` })
    const begin = performance.now()
    await sandbox.reset()
    resets.push(performance.now() - begin)
  }
  globalThis.gc()
  const { rss, heapUsed } = process.memoryUsage()
  // Right after a GC, the pages it freed are still being handed back to the
  // system (V8 unmaps them on other threads): the RSS a second later, after
  // another GC, is what holding the world costs.
  await sleep(2_000)
  globalThis.gc()
  const settled = process.memoryUsage()
  process.stdout.write(
    JSON.stringify({
      calls: sandbox.db.count('calls'),
      seedMs,
      addContact,
      addKnownCall,
      reset: median(resets),
      rssAfterGc: rss,
      rss: settled.rss,
      heap: settled.heapUsed,
      heapAfterGc: heapUsed,
    }),
  )
}

// 6. A consumer's suite: the packed package in a project of its own, 9 test
// files on the README's setupSandboxServer, against the same 9 on a bare msw
// handler returning the same bytes.
async function consumerFigure() {
  const body = await readmeAnswer()
  const dir = tempDir('bench-call-sandbox-consumer-')
  const packed = JSON.parse(await run('npm', ['pack', '--pack-destination', dir, '--json', '--ignore-scripts']))
  const tarball = join(dir, packed[0].filename)
  const version = (name) => JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
  await run(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      tarball,
      `vitest@${version('vitest')}`,
      `msw@${version('msw')}`,
    ],
    { cwd: dir },
  )

  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const snippet = readme.slice(readme.indexOf('## In your tests')).match(/```ts\n([\s\S]*?)```/)[1]
  const test = snippet.slice(snippet.indexOf('\nit('))
  const bare = `import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'

const body = ${JSON.stringify(body)}
const server = setupServer(http.get('https://api.example.com/v1/calls', () => HttpResponse.text(body, { headers: { 'content-type': 'application/json' } })))
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
beforeEach(() => server.resetHandlers())
afterAll(() => server.close())
${test}`
  for (const [suite, source] of [
    ['suite-sandbox', snippet],
    ['suite-msw', bare],
  ]) {
    mkdirSync(join(dir, suite))
    for (let i = 1; i <= 9; i++) writeFileSync(join(dir, suite, `calls-${i}.test.ts`), source)
  }
  const vitest = async (suite) => {
    const start = performance.now()
    await run('npx', ['vitest', 'run', suite], { cwd: dir, env: { ...process.env, CI: '1', NO_COLOR: '1' } })
    return performance.now() - start
  }
  await vitest('suite-sandbox') // warm-up: vitest's and the files' first load
  await vitest('suite-msw')
  const ours = []
  const theirs = []
  for (let i = 0; i < 3; i++) {
    if (i % 2 === 0) {
      ours.push(await vitest('suite-sandbox'))
      theirs.push(await vitest('suite-msw'))
    } else {
      theirs.push(await vitest('suite-msw'))
      ours.push(await vitest('suite-sandbox'))
    }
  }
  removeTempDir(dir)
  spread('consumer suite, sandbox', ours, seconds)
  spread('consumer suite, bare msw', theirs, seconds)
  row(
    "consumer: npx vitest run, 9 files on the README's setupSandboxServer (packed package), wall time",
    seconds(median(ours)),
    `the same 9 on a bare msw setupServer(http.get) of the same bytes: ${seconds(median(theirs))}`,
    median(ours) / median(theirs),
    ['<=', 1.5],
  )
}

/** The body of the README's test request (GET /v1/calls?limit=5 on the default world), for the bare suite. */
async function readmeAnswer() {
  const { answer, createSandbox } = await import(ENTRY)
  const sandbox = createSandbox({ seed: 1, now: NOW })
  await sandbox.ready
  const response = await answer(
    sandbox,
    new Request('https://api.example.com/v1/calls?limit=5', { headers: { Authorization: AUTH } }),
  )
  if (response.status !== 200) throw new Error(`GET /v1/calls?limit=5: ${response.status}`)
  return response.text()
}

// Run as the bench, or as one of its children.
const mode = process.argv[2]
if (mode === 'express' || mode === 'node-http' || mode === 'msw-get-response')
  await serveContender(mode, process.argv[3])
else if (mode === 'in-process') await inProcessRates()
else if (mode === 'world') await worldFigures(Number(process.argv[3]))
else await main()
