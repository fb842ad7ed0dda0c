// The sandbox without the package (`node bench/anywhere.mjs`, after `npm run build` and `npm run build:sea`): the
// size of the one file and of the single executable, and how long each takes from its start to its first answer
// (GET /v1/me, 200), median of 5, against `npm start` and the command's own file. Each start is in an empty temp
// folder, with a port of its own; the compile caches are off, so every start is a first one (the executable's code
// cache is inside it).
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { killChildren, launch } from './children.mjs'
import { median } from './median.mjs'
import { AUTH, CLI, megabytes, nodeTwentyFour, ROOT } from './shared.mjs'
import { freePort } from '../test/support/freePort.mjs'

const ONE_FILE = join(ROOT, 'dist', 'call-sandbox.cjs')
const EXECUTABLE = join(ROOT, 'dist', 'sea', 'call-sandbox-linux-x64')
const RUNS = 5

/**
 * Milliseconds from the spawn to the first 200 of GET /v1/me; the program is then stopped.
 * @param {string} command
 * @param {string[]} args
 * @param {Record<string, string | undefined>} env
 * @param {string} cwd
 */
async function firstAnswer(command, args, env, cwd) {
  const port = await freePort()
  const start = performance.now()
  const child = launch(command, [...args, '--port', String(port), '--quiet'], { cwd, env })
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command} exited: ${child.output}`)
    const answered = await fetch(`http://127.0.0.1:${port}/v1/me`, { headers: { Authorization: AUTH } }).then(
      (response) => response.status === 200,
      () => false,
    )
    if (answered) break
    await sleep(2)
  }
  const ms = performance.now() - start
  child.kill('SIGTERM')
  await child.exited
  return ms
}

const node24 = (await nodeTwentyFour()).path
const folder = mkdtempSync(join(tmpdir(), 'call-sandbox-anywhere-'))
try {
  copyFileSync(ONE_FILE, join(folder, 'call-sandbox.cjs'))
  copyFileSync(EXECUTABLE, join(folder, 'call-sandbox'))
  const noCache = { PATH: process.env.PATH, NODE_DISABLE_COMPILE_CACHE: '1' }
  /** @type {[string, string, string[], Record<string, string | undefined>, string][]} */
  const starts = [
    ['the one file, Node 20', process.execPath, ['call-sandbox.cjs'], noCache, folder],
    ['the one file, Node 24', node24, ['call-sandbox.cjs'], noCache, folder],
    ['the single executable (env -i)', './call-sandbox', [], {}, folder],
    ['the command (dist/bin), Node 20', process.execPath, [CLI], noCache, ROOT],
    ['npm start, Node 20', 'npm', ['start', '--silent', '--'], { ...process.env, ...noCache }, ROOT],
  ]
  console.log(`the one file: ${megabytes(statSync(ONE_FILE).size)} (${statSync(ONE_FILE).size} bytes)`)
  console.log(`the single executable: ${megabytes(statSync(EXECUTABLE).size)} (${statSync(EXECUTABLE).size} bytes)`)
  for (const [what, command, args, env, cwd] of starts) {
    await firstAnswer(command, args, env, cwd) // the disk's cache warmed, not measured
    const runs = []
    for (let run = 0; run < RUNS; run++) runs.push(await firstAnswer(command, args, env, cwd))
    console.log(`${what}: ${median(runs).toFixed(0)} ms to the first answer (${runs.map(Math.round).join(', ')})`)
  }
} finally {
  killChildren()
  rmSync(folder, { recursive: true, force: true })
}
