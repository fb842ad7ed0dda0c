// The standalone figure's contenders other than the command: Stoplight Prism (a dev dependency), Mockoon CLI and
// WireMock (installed from the npm registry into PEERS_DIR on their first run), and the plain Node servers of
// contender.mjs, each in a process of its own, killed at the end (children.mjs).
import { randomUUID } from 'node:crypto'
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { launch, waitFor } from './children.mjs'
import { freePort } from './servers.mjs'
import { kilobytes, PAGE, ROOT, run } from './shared.mjs'

/**
 * Where the peers are installed: outside node_modules/.bin, where their commands would shadow the project's.
 * BENCH_PEERS_DIR puts them elsewhere (a worktree whose node_modules is another clone's).
 */
const PEERS_DIR = process.env.BENCH_PEERS_DIR ?? join(ROOT, 'node_modules/.cache/bench-peers')
// Pinned: the environment file below is written for this Mockoon's data format.
const PEERS = { '@mockoon/cli': '9.9.0', wiremock: '3.13.2' }
const MOCKOON_DATA_FORMAT = 33 // Mockoon's `lastMigration`: the format of its environment files

/**
 * A server the figure measures.
 * @typedef {object} Contender
 * @property {string} name
 * @property {import('./children.mjs').Child} child
 * @property {string} url
 * @property {number} [bytes] The length every answer must have; any length when undefined.
 * @property {() => string} output What it printed, for an error message.
 * @property {(answered: number) => string} baseline The row's baseline, given the length of its first answer.
 * @property {import('./shared.mjs').Goal} goal
 * @property {'best' | 'median'} [rate] Which of its rounds it is compared by: WireMock by its best, once its JIT is warm.
 */

/**
 * Installs the peers `names` in PEERS_DIR unless they are there.
 * @param {(keyof typeof PEERS)[]} names
 */
export async function installPeers(names) {
  /** @param {keyof typeof PEERS} name */
  const installed = (name) => {
    const manifest = join(PEERS_DIR, 'node_modules', name, 'package.json')
    return existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).version === PEERS[name]
  }
  if (names.every(installed)) return
  // One command for all that are asked for: an install with --no-save removes what its package.json does not list.
  const specs = Object.entries(PEERS).map(([name, version]) => `${name}@${version}`)
  process.stderr.write(`standalone: installing ${specs.join(', ')} in ${PEERS_DIR}\n`)
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

/**
 * Stoplight Prism mocking the sandbox's own document: it answers with an example it generates from the schema.
 * @param {string} documentFile
 * @returns {Promise<Contender>}
 */
export async function startPrism(documentFile) {
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

/**
 * Mockoon CLI: one route sending the same bytes, its templating off, without the admin API the bench does not use.
 * @param {string} dir
 * @param {Buffer} body
 * @returns {Promise<Contender>}
 */
export async function startMockoon(dir, body) {
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
 * Content-Length, as the others send, rather than its default chunks. With `journal`, its request journal kept to
 * that many requests instead, as the sandbox keeps its own (like for like: its default is a journal without bound).
 * @param {string} dir
 * @param {Buffer} body
 * @param {number} [journal]
 * @returns {Promise<Contender>}
 */
export async function startWireMock(dir, body, journal) {
  const root = join(dir, journal === undefined ? 'wiremock' : 'wiremock-journal')
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
    ...(journal === undefined ? ['--no-request-journal'] : ['--max-request-journal-entries', String(journal)]),
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
  const standalone = `WireMock ${PEERS.wiremock} standalone (java ${javaVersion}), one stub of the same bytes`
  return {
    name: journal === undefined ? 'WireMock' : 'WireMock, journal',
    child,
    url: `http://127.0.0.1:${port}/`,
    bytes: body.length,
    output: () => child.output,
    baseline: () =>
      journal === undefined
        ? `${standalone}, no request journal, its best round`
        : `${standalone}, its journal kept to its last ${journal.toLocaleString('en-US')} requests as the sandbox's is, its best round`,
    goal: journal === undefined ? ['>=', 1] : 'none (like for like: both keep a journal)',
    rate: 'best',
  }
}

const NODE_CONTENDERS = {
  express: ['Express', 'plain Express sending the same bytes', 'none (the floor)'],
  'node-http': ['node:http', 'plain node:http sending the same bytes', 'none (the floor)'],
  'msw-get-response': [
    'node:http + msw getResponse',
    "node:http asking msw's getResponse for one http.get handler of the same bytes",
    'none (reported)',
  ],
}

/**
 * A plain Node server of contender.mjs, in a child of its own.
 * @param {keyof typeof NODE_CONTENDERS} which
 * @param {string} bodyFile
 * @param {Buffer} body
 * @returns {Promise<Contender>}
 */
export async function startNodeContender(which, bodyFile, body) {
  const child = launch(process.execPath, [join(ROOT, 'bench/contender.mjs'), which, bodyFile])
  const [, url = ''] = await waitFor(child, /listening on (\S+)/)
  const [name, baseline, goal] = NODE_CONTENDERS[which]
  return { name, child, url, bytes: body.length, output: () => child.output, baseline: () => baseline, goal }
}

/**
 * Waits until a contender answers (Prism, Mockoon and WireMock do not print when they listen); rejects unless its
 * answer is a 200 of the bytes it should send. Its answer's length.
 * @param {Contender} contender
 * @param {Record<string, string>} headers
 */
export async function checkUpstreamReply(contender, headers) {
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
