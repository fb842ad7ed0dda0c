// The bench's child processes (servers, fresh imports, worlds): each one's
// output kept for error messages, and every one still running killed by
// killChildren(), which each bench calls at its end, on an error too.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
/**
 * A child process with what it printed: its output (stdout and stderr, the last 64 KB) and all of its stdout.
 * @typedef {import('node:child_process').ChildProcess & {
 *   output: string,
 *   stdoutText: string,
 *   exited: Promise<{ code: number | null, signal: NodeJS.Signals | null }>,
 * }} Child
 */

/** @type {Set<Child>} */
const children = new Set()

/**
 * A child process, killed at the end; its output is kept (the last 64 KB) for error messages.
 * @param {string} command
 * @param {readonly string[]} args
 * @param {import('node:child_process').SpawnOptions} [options]
 * @returns {Child}
 */
export function launch(command, args, options = {}) {
  const child = /** @type {Child} */ (
    spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], ...options })
  )
  children.add(child)
  child.output = ''
  child.stdoutText = ''
  /** @param {Buffer | string} chunk */
  const keep = (chunk) => {
    child.output = (child.output + chunk).slice(-65_536)
  }
  child.stdout?.on('data', (chunk) => {
    child.stdoutText += chunk
    keep(chunk)
  })
  child.stderr?.on('data', keep)
  child.exited = new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      children.delete(child)
      resolve({ code, signal })
    }),
  )
  return child
}

/** @param {Child} child */
export async function stop(child) {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  await child.exited
}

/**
 * Resolves with the match once the child prints `pattern`; rejects if it exits first or takes too long.
 * @param {Child} child
 * @param {RegExp} pattern
 * @returns {Promise<RegExpMatchArray>}
 */
export function waitFor(child, pattern, timeoutMs = 60_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`no ${pattern} in ${timeoutMs} ms:\n${child.output}`)), timeoutMs)
    const check = () => {
      const match = child.output.match(pattern)
      if (match) done(match)
    }
    /** @param {{ code: number | null, signal: NodeJS.Signals | null }} exit */
    const onExit = ({ code, signal }) =>
      fail(new Error(`exited (${code ?? signal}) before ${pattern}:\n${child.output}`))
    /** @param {RegExpMatchArray} value */
    const done = (value) => {
      clearTimeout(timer)
      child.stdout?.off('data', check)
      resolve(value)
    }
    /** @param {Error} error */
    const fail = (error) => {
      clearTimeout(timer)
      child.stdout?.off('data', check)
      reject(error)
    }
    child.stdout?.on('data', check)
    child.exited.then(onExit)
    check()
  })
}

/** Kills every child still running. */
export function killChildren() {
  for (const child of children) child.kill('SIGKILL')
  children.clear()
}
