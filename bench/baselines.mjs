// Issue 9's figures (npm run bench runs it after run.mjs and sessions.mjs),
// each against a contender measured in the same run, so that the ratios
// compare on any machine. The machine is small and noisy: every figure warms
// up first, alternates its contenders (A, B, B, A, ...) rather than running
// all of A and then all of B, and takes medians.
//
//   1. import call-sandbox/node and seed the default world, fresh process, against import('msw/node')
//   2. in process, GET /v1/calls?limit=50 through msw's setupServer, against a bare msw handler of the same bytes
//   3. the standalone server under 20 concurrent connections, against Express + @mswjs/http-middleware,
//      plain Express (both sending the same bytes) and Stoplight Prism serving the sandbox's own document
//   4. the CLI's start-up until it listens against a bare node start, and its RSS at idle
//   5. 100,000 calls: seed, one write, reset() after 10 writes and RSS, against the default world
//   6. a consumer's vitest suite of 9 files on setupSandboxServer, against the same on a bare msw handler
//
// Child processes (servers, fresh imports, worlds) are killed and temporary
// files removed at the end, on an error too. This file imports only Node's
// own modules at the top, so that it can run itself as a child (see `mode`).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { killChildren, launch, stop, waitFor } from './children.mjs'
import { median } from './median.mjs'

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

// ---------------------------------------------------------------- helpers

const temporary = new Set()
function cleanUp() {
  killChildren()
  for (const path of temporary) rmSync(path, { recursive: true, force: true })
  temporary.clear()
}

/** A temp folder, removed at the end. Not named call-sandbox-*: a test run going on beside the bench would count it as its own leftover. */
function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  temporary.add(dir)
  return dir
}

/** The whole run of a command: its standard output; rejects unless it exits 0. */
async function run(command, args, options = {}) {
  const child = launch(command, args, options)
  const { code, signal } = await child.exited
  if (code !== 0) throw new Error(`${command} ${args.join(' ')}: ${code ?? signal}\n${child.output}`)
  return child.stdoutText
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

function rssOf(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m)
  return Number(line[1]) * 1024
}

/** The samples behind a median, on stderr: how noisy the run was. */
function spread(what, samples, format) {
  const sorted = [...samples].sort((a, b) => a - b)
  process.stderr.write(`  ${what}: median ${format(median(sorted))}, ${sorted.length} samples from ${format(sorted[0])} to ${format(sorted.at(-1))}\n`)
}

const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`
const millis = (ms) => `${ms.toFixed(2)} ms`
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

// ---------------------------------------------------------------- the run

async function main() {
  process.on('exit', cleanUp)
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      cleanUp()
      process.exit(130)
    })
  }
  // The CLI's compile cache: the bench's own, removed at the end, for every CLI it starts.
  process.env.NODE_COMPILE_CACHE = tempDir('bench-compile-cache-')
  const started = performance.now()
  process.stderr.write(`baselines: call-sandbox/node is ${fileURLToPath(NODE_ENTRY)}, the CLI ${CLI}\n`)
  const phase = (name) => process.stderr.write(`baselines: ${name} (${seconds(performance.now() - started)} in)\n`)
  try {
    // BENCH_ONLY=2,3 runs only those figures
    const only = process.env.BENCH_ONLY?.split(',')
    const figures = [
      ['1', 'import and seed, fresh processes', importFigure],
      ['4', 'CLI start-up and RSS', startUpFigure],
      ['2', 'in process, through msw', async () => (consumerBody = await inProcessFigure())],
      ['3', 'standalone servers under load', serverFigure],
      ['5', '100,000 calls', largeWorldFigure],
      ['6', 'a consumer suite', async () => consumerFigure(consumerBody ?? (await inProcessFigure()))],
    ]
    let consumerBody
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

// 1. Import and seed in a fresh process, against importing msw/node alone; timed in
// the child from before the import (node's own start, the same for both, left out).
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
  const fresh = async (script) => Number(await run(process.execPath, ['--input-type=module', '-e', script]))
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
  spread('import + seed', sandbox, seconds)
  spread("import('msw/node')", msw, seconds)
  row(
    "import call-sandbox/node + seed the default world (README's setupSandboxServer), fresh process",
    seconds(median(sandbox)),
    `import('msw/node') alone, fresh process: ${seconds(median(msw))}`,
    median(sandbox) / median(msw),
    ['<=', 2.5],
  )
}

// 4. The CLI until it listens, against a bare node start; its RSS a second after it listens.
// The CLI starts from its compile cache (in the bench's own temp folder, see
// main), which its first start writes; the same without the cache is shown too.
async function startUpFigure() {
  const startUp = async ({ args, env }) => {
    const start = performance.now()
    const child = launch(process.execPath, args, { env: { ...process.env, ...env } })
    await waitFor(child, /listening on/)
    const ms = performance.now() - start
    await sleep(1_000)
    const rss = rssOf(child.pid)
    await stop(child)
    return { ms, rss }
  }
  const contenders = {
    bare: { args: ['-e', "console.log('listening on nothing'); setInterval(() => {}, 60_000)"], runs: [] },
    cli: { args: [CLI, '--port', '0', '--quiet'], runs: [] },
    uncached: { args: [CLI, '--port', '0', '--quiet'], env: { NODE_DISABLE_COMPILE_CACHE: '1' }, runs: [] },
  }
  const order = [contenders.bare, contenders.cli, contenders.uncached]
  for (const contender of order) await startUp(contender) // warm-up; the CLI's writes its cache
  for (let i = 0; i < 5; i++) {
    for (const contender of i % 2 === 0 ? order : [...order].reverse()) contender.runs.push(await startUp(contender))
  }
  const ms = ({ runs }) => median(runs.map((one) => one.ms))
  const rss = ({ runs }) => median(runs.map((one) => one.rss))
  const { bare, cli, uncached } = contenders
  spread('CLI start-up', cli.runs.map((one) => one.ms), seconds)
  spread('CLI start-up without its compile cache', uncached.runs.map((one) => one.ms), seconds)
  spread('bare node start', bare.runs.map((one) => one.ms), seconds)
  spread('CLI RSS', cli.runs.map((one) => one.rss), megabytes)
  spread('CLI RSS without its compile cache', uncached.runs.map((one) => one.rss), megabytes)
  const underMegabytes = (value) => `<= 100 MB (${value <= 100 * 1024 * 1024 ? 'met' : 'missed'})`
  row('call-sandbox CLI start until it listens (default world)', seconds(ms(cli)), `bare node until it prints: ${seconds(ms(bare))}`, ms(cli) / ms(bare), ['<=', 4])
  row('the same, without its compile cache (a first start)', seconds(ms(uncached)), `bare node until it prints: ${seconds(ms(bare))}`, ms(uncached) / ms(bare), ['<=', 4])
  row('call-sandbox CLI RSS at idle, 1 s after it listens (default world)', megabytes(rss(cli)), `bare node idling: ${megabytes(rss(bare))}`, rss(cli) / rss(bare), underMegabytes(rss(cli)))
  row('the same, without its compile cache', megabytes(rss(uncached)), `bare node idling: ${megabytes(rss(bare))}`, rss(uncached) / rss(bare), underMegabytes(rss(uncached)))
}

// 2. In process: the sandbox's handlers in msw's setupServer and a real fetch,
// against a bare msw handler on the same URL returning the same bytes.
// Returns the body of the README's test request, for the consumer suite.
async function inProcessFigure() {
  const { setupServer } = await import('msw/node')
  const { http, HttpResponse } = await import('msw')
  const { createSandbox } = await import(ENTRY)
  const sandbox = createSandbox({ seed: 1, now: NOW })
  await sandbox.ready
  const server = setupServer(...sandbox.handlers)
  server.listen({ onUnhandledRequest: 'error' })
  try {
    const url = `https://api.example.com${PAGE}`
    const get = async (target) => {
      const response = await fetch(target, { headers: { Authorization: AUTH } })
      if (response.status !== 200) throw new Error(`${target}: ${response.status}`)
      return response.text()
    }
    const body = await get(url)
    const consumerBody = await get('https://api.example.com/v1/calls?limit=5')
    const bare = [http.get('https://api.example.com/v1/calls', () => HttpResponse.text(body, { headers: { 'content-type': 'application/json' } }))]
    const batch = async (handlers, requests = 200) => {
      server.resetHandlers(...handlers)
      const start = performance.now()
      for (let i = 0; i < requests; i++) await get(url)
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
    spread('in process, sandbox', ours, perSecond)
    spread('in process, bare msw', theirs, perSecond)
    row(
      `in process: GET ${PAGE} through msw setupServer + fetch (${(body.length / 1024).toFixed(0)} KB)`,
      perSecond(median(ours)),
      `bare msw http.get returning the same bytes: ${perSecond(median(theirs))}`,
      median(ours) / median(theirs),
      ['>=', 0.85],
    )
    return consumerBody
  } finally {
    server.close()
  }
}

// 3. The standalone server under 20 concurrent connections, against three others, each in its own process.
async function serverFigure() {
  const dir = tempDir('bench-call-sandbox-')
  const cli = launch(process.execPath, [CLI, '--port', '0', '--quiet'])
  const [, sandboxUrl] = await waitFor(cli, /listening on (\S+)/)
  const headers = { authorization: AUTH }
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

  const express = launch(process.execPath, [import.meta.filename, 'express', bodyFile])
  const expressMsw = launch(process.execPath, [import.meta.filename, 'express-msw', bodyFile])
  const prismPort = await freePort()
  const prismBin = join(ROOT, 'node_modules/@stoplight/prism-cli/dist/index.js')
  // -v warn: no line per request, as the sandbox's --quiet
  const prism = launch(process.execPath, [prismBin, 'mock', documentFile, '--port', String(prismPort), '-v', 'warn'])
  const [, expressUrl] = await waitFor(express, /listening on (\S+)/)
  const [, expressMswUrl] = await waitFor(expressMsw, /listening on (\S+)/)
  const prismUrl = `http://127.0.0.1:${prismPort}/`
  for (let tries = 0; ; tries++) {
    const answered = await fetch(new URL(PAGE, prismUrl), { headers }).then(
      (response) => response.arrayBuffer().then(() => response.status),
      () => undefined,
    )
    if (answered !== undefined) {
      if (answered !== 200) throw new Error(`Prism answered ${PAGE} with ${answered}:\n${prism.output}`)
      break
    }
    if (tries > 300 || prism.exitCode !== null) throw new Error(`Prism did not start:\n${prism.output}`)
    await sleep(200)
  }

  const contenders = [
    { name: 'sandbox', url: sandboxUrl },
    { name: 'express-msw', url: expressMswUrl },
    { name: 'express', url: expressUrl },
    { name: 'prism', url: prismUrl },
  ]
  const load = await loadGenerator()
  for (const contender of contenders) {
    contender.client = load.client(contender.url)
    contender.rates = []
    contender.bytes = 0
  }
  const round = async (contender, ms) => {
    const { rate, failed, bytes } = await contender.client.round(PAGE, headers, ms)
    if (failed > 0) throw new Error(`${contender.name}: ${failed} answers were not 200`)
    contender.bytes = bytes
    return rate
  }
  for (const contender of contenders) await round(contender, 1_000) // warm-up
  for (let i = 0; i < 5; i++) {
    const order = i % 2 === 0 ? contenders : [...contenders].reverse()
    for (const contender of order) contender.rates.push(await round(contender, 1_500))
  }
  for (const contender of contenders) await contender.client.close()
  for (const child of [cli, express, expressMsw, prism]) await stop(child)
  rmSync(dir, { recursive: true, force: true })
  temporary.delete(dir)

  for (const contender of contenders) spread(`standalone, ${contender.name}`, contender.rates, perSecond)
  const [sandbox, expressMswRate, expressRate, prismRate] = contenders.map((contender) => median(contender.rates))
  const what = `standalone: GET ${PAGE}, ${CONNECTIONS} connections (${load.name}), ${(body.length / 1024).toFixed(0)} KB`
  row(`${what}: call-sandbox CLI`, perSecond(sandbox), `Express + @mswjs/http-middleware, one msw handler of the same bytes: ${perSecond(expressMswRate)}`, sandbox / expressMswRate, ['>=', 0.85])
  row(`${what}: call-sandbox CLI`, perSecond(sandbox), `plain Express sending the same bytes: ${perSecond(expressRate)}`, sandbox / expressRate, 'none (the floor)')
  row(
    `${what}: call-sandbox CLI`,
    perSecond(sandbox),
    `Prism mock of the sandbox's document (its generated example, ${(contenders[3].bytes / 1024).toFixed(1)} KB, not the same bytes): ${perSecond(prismRate)}`,
    sandbox / prismRate,
    ['>=', 2],
  )
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
                const request = http.get({ host: target.hostname, port: target.port, path, headers, agent }, (response) => {
                  let bytes = 0
                  response.on('data', (chunk) => (bytes += chunk.length))
                  response.on('end', () => resolve({ status: response.statusCode, bytes }))
                  response.on('error', reject)
                })
                request.on('error', reject)
              }),
          ),
        close: async () => agent.destroy(),
      }
    },
  }
}

/** A contender of figure 3, as a child: plain Express, or Express with msw's http-middleware, sending the body file's bytes. */
async function serveContender(which, bodyFile) {
  const { default: express } = await import('express')
  const body = readFileSync(bodyFile)
  const app = express()
  app.disable('x-powered-by') // as the sandbox's app
  app.set('etag', false)
  if (which === 'express') {
    app.get('/v1/calls', (request, response) => {
      response.type('application/json').send(body)
    })
  } else {
    const { createMiddleware } = await import('@mswjs/http-middleware')
    const { http, HttpResponse } = await import('msw')
    const text = body.toString('utf8')
    app.use(createMiddleware(http.get('/v1/calls', () => HttpResponse.text(text, { headers: { 'content-type': 'application/json' } }))))
  }
  const server = app.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}/`))
}

// 5. 100,000 calls against the default world, each in a process of its own (its RSS is the world's).
async function largeWorldFigure() {
  const world = async (calls) => JSON.parse(await run(process.execPath, ['--expose-gc', '--max-old-space-size=4096', import.meta.filename, 'world', String(calls)]))
  const small = await world(300)
  const large = await world(100_000)
  const perCall = (figures) => figures.seedMs / figures.calls
  const atMost = (value, bound, text) => `<= ${text} (${value <= bound ? 'met' : 'missed'})`
  row('seed 100,000 calls (per call)', `${seconds(large.seedMs)} (${millis(perCall(large))} a call)`, `default world (${small.calls} calls): ${millis(small.seedMs)} (${millis(perCall(small))} a call)`, perCall(large) / perCall(small), atMost(large.seedMs, 3000, '3 s'))
  row('one write at 100,000 calls: addContact, a new caller (median of 21)', millis(large.addContact), `default world: ${millis(small.addContact)}`, large.addContact / small.addContact, atMost(large.addContact, 1, '1 ms'))
  row("one write at 100,000 calls: addCall from a known caller, who changes (median of 21)", millis(large.addKnownCall), `default world: ${millis(small.addKnownCall)}`, large.addKnownCall / small.addKnownCall, atMost(large.addKnownCall, 1, '1 ms'))
  row('reset() after 10 writes at 100,000 calls (median of 5)', millis(large.reset), `default world: ${millis(small.reset)}`, large.reset / small.reset, atMost(large.reset, 5, '5 ms'))
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
  const response = await answer(sandbox, new Request('http://bench.local/v1/contacts?limit=1', { headers: { Authorization: AUTH } }))
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
    JSON.stringify({ calls: sandbox.db.count('calls'), seedMs, addContact, addKnownCall, reset: median(resets), rssAfterGc: rss, rss: settled.rss, heap: settled.heapUsed, heapAfterGc: heapUsed }),
  )
}

// 6. A consumer's suite: the packed package in a project of its own, 9 test
// files on the README's setupSandboxServer, against the same 9 on a bare msw
// handler returning the same bytes.
async function consumerFigure(body) {
  const dir = tempDir('bench-call-sandbox-consumer-')
  const packed = JSON.parse(await run('npm', ['pack', '--pack-destination', dir, '--json', '--ignore-scripts']))
  const tarball = join(dir, packed[0].filename)
  const version = (name) => JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, `vitest@${version('vitest')}`, `msw@${version('msw')}`], { cwd: dir })

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
  for (const [suite, source] of [['suite-sandbox', snippet], ['suite-msw', bare]]) {
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
  rmSync(dir, { recursive: true, force: true })
  temporary.delete(dir)
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

// Run as the bench, or as one of its children.
const mode = process.argv[2]
if (mode === 'express' || mode === 'express-msw') await serveContender(mode, process.argv[3])
else if (mode === 'world') await worldFigures(Number(process.argv[3]))
else await main()
