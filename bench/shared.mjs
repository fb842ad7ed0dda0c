// What the figures against other tools share (standalone.mjs, in-process.mjs, import.mjs, start-up.mjs,
// large-world.mjs, consumer.mjs): the package as a consumer gets it, temp folders and child processes removed at the
// end (on an error too), the runtimes of each major of msw, and the table of rows each figure prints. It imports
// only Node's own modules, so that the figures' children can import it before the package.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { killChildren, launch } from './children.mjs'
import { median } from './median.mjs'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))
// The built package as a consumer gets it: its entries as its `exports` resolve
// them (the package refers to itself by name), its command as its `bin` names it.
export const ENTRY = import.meta.resolve('call-sandbox')
export const NODE_ENTRY = import.meta.resolve('call-sandbox/node')
export const CLI = join(ROOT, JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).bin['call-sandbox'])
export const NOW = '2026-11-20T12:00:00Z'
export const AUTH = 'Bearer sk_sandbox_all'
export const PAGE = '/v1/calls?limit=50'
export const CONNECTIONS = 20

/** @type {Set<string>} */
const temporary = new Set()

function cleanUp() {
  killChildren()
  for (const path of temporary) rmSync(path, { recursive: true, force: true })
  temporary.clear()
}

/**
 * A temp folder, removed at the end. Not named call-sandbox-*: a test run going on beside the bench would count it as
 * its own leftover.
 * @param {string} prefix
 */
export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  temporary.add(dir)
  return dir
}

/** @param {string} dir */
export function removeTempDir(dir) {
  rmSync(dir, { recursive: true, force: true })
  temporary.delete(dir)
}

/**
 * The whole run of a command: its standard output; rejects unless it exits 0.
 * @param {string} command
 * @param {string[]} args
 * @param {import('node:child_process').SpawnOptions} [options]
 * @returns {Promise<string>}
 */
export async function run(command, args, options = {}) {
  const child = launch(command, args, options)
  const { code, signal } = await child.exited
  if (code !== 0) throw new Error(`${command} ${args.join(' ')}: ${code ?? signal}\n${child.output}`)
  return child.stdoutText
}

/** @param {number | undefined} pid */
export function rssOf(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m)
  if (!line) throw new Error(`no VmRSS for process ${pid}`)
  return Number(line[1]) * 1024
}

/** @typedef {(value: number) => string} Format */

/**
 * The samples behind a median, on stderr: how noisy the run was.
 * @param {string} what
 * @param {number[]} samples
 * @param {Format} format
 */
export function spread(what, samples, format) {
  const sorted = [...samples].sort((a, b) => a - b)
  process.stderr.write(
    `  ${what}: median ${format(median(sorted))}, ${sorted.length} samples from ${format(sorted[0] ?? NaN)} to ${format(sorted.at(-1) ?? NaN)}\n`,
  )
}

/** @type {Format} */
export const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`
/** @type {Format} */
export const millis = (ms) => `${ms.toFixed(2)} ms`
/** @type {Format} */
export const kilobytes = (bytes) => `${(bytes / 1024).toFixed(bytes < 10_240 ? 1 : 0)} KB`
/** @type {Format} */
export const megabytes = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MB`
/** @type {Format} */
export const perSecond = (rate) => `${Math.round(rate).toLocaleString('en-US')} req/s`

/** A goal on a ratio: [comparison, bound, unit], or a text. @typedef {['<=' | '>=', number, string?] | string} Goal */

/** @type {{ what: string, value: string, baseline: string, ratio: string, goal: string }[]} */
const rows = []

/**
 * A row of the figure's table: `ratio` is value over baseline.
 * @param {string} what
 * @param {string} value
 * @param {string} baseline
 * @param {number | undefined} ratio
 * @param {Goal} [goal]
 */
export function row(what, value, baseline, ratio, goal = '') {
  let goalText = goal
  if (Array.isArray(goal)) {
    const [comparison, bound, unit = 'x'] = goal
    const met = ratio !== undefined && (comparison === '<=' ? ratio <= bound : ratio >= bound)
    goalText = `${comparison} ${bound}${unit} (${met ? 'met' : 'missed'})`
  }
  rows.push({ what, value, baseline, ratio: ratio === undefined ? '' : `${ratio.toFixed(2)}x`, goal: String(goalText) })
}

/**
 * Runs one figure as the bench does: its name and time on stderr, its rows as a table, and every child and temp folder
 * gone at the end, on an error or a signal too.
 * @param {string} name
 * @param {() => Promise<void>} figure
 */
export async function benchFigure(name, figure) {
  process.on('exit', cleanUp)
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      cleanUp()
      process.exit(130)
    })
  }
  const started = performance.now()
  process.stderr.write(`${name}: call-sandbox/node is ${fileURLToPath(NODE_ENTRY)}, the CLI ${CLI}\n`)
  try {
    await figure()
  } finally {
    cleanUp()
  }
  process.stderr.write(`${name}: done in ${seconds(performance.now() - started)}\n`)
  console.table(rows)
}

/** @type {{ path: string, version: string } | undefined} */
let node24
/** The Node 24 binary (scripts/node24.mjs installs it on its first call) and its version. */
export async function nodeTwentyFour() {
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
 * built package's too) at msw 3, installed apart by scripts/msw3.mjs.
 * @param {2 | 3} major
 */
export async function mswRuntime(major) {
  /** @type {{ node: string, flags: string[], on: string }} */
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

/**
 * The default world's answer to GET `path` with the first key, from the built package (imported only here, not at
 * the top): the bytes a bare msw handler returns against it.
 * @param {string} path
 */
export async function sandboxAnswer(path) {
  const { answer, createSandbox } = await import(ENTRY)
  const sandbox = createSandbox({ seed: 1, now: NOW })
  await sandbox.ready
  const response = await answer(
    sandbox,
    new Request(`https://api.example.com${path}`, { headers: { Authorization: AUTH } }),
  )
  if (response.status !== 200) throw new Error(`GET ${path}: ${response.status}`)
  return Buffer.from(await response.arrayBuffer())
}
