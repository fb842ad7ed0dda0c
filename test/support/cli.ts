import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The built program (`npm test` builds it first). */
export const CLI = 'dist/bin/call-sandbox.js'
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
/**
 * Node's compile cache for the program in these tests (see bin.ts): the project's own, the one `test:msw3` uses, not
 * a folder of the system's temp folder, which a run stopped before its `afterAll` left behind.
 */
const COMPILE_CACHE = join(ROOT, 'node_modules', '.cache', 'node-compile-cache')

/** A running `call-sandbox` program and what it printed so far. */
export interface Cli {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  /** Resolves once the output satisfies `done`; rejects after `timeoutMs` or when the program exits first. */
  waitForOutput(done: (stdout: string) => boolean, what: string, timeoutMs?: number): Promise<string>
  /** Resolves with the exit code (or signal) once it exits; rejects after `timeoutMs`. */
  exit(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

const children = new Set<ChildProcess>()

export function runCli(args: string[], env: Record<string, string | undefined> = {}, cwd = ROOT): Cli {
  const environment = {
    ...process.env,
    PORT: undefined,
    NODE_OPTIONS: undefined,
    NODE_DISABLE_COMPILE_CACHE: undefined,
    NODE_COMPILE_CACHE: COMPILE_CACHE,
    ...env,
  }
  return runProgram([process.execPath, join(ROOT, CLI), ...args], environment, cwd)
}

/**
 * Any program (the one file under a Node, the single executable, a Dockerfile's command), with exactly the environment
 * given: `{}` is `env -i`.
 */
export function runProgram([command, ...args]: string[], env: Record<string, string | undefined>, cwd = ROOT): Cli {
  const child = spawn(command!, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  children.add(child)
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => {
      children.delete(child)
      resolve({ code, signal })
    })
  })
  const describeOutput = () => `\nstdout:\n${stdout}\nstderr:\n${stderr}`

  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    waitForOutput: (done, what, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => finish(new Error(`no ${what} within ${timeoutMs} ms${describeOutput()}`)),
          timeoutMs,
        )
        const check = () => {
          if (done(stdout)) finish()
        }
        const onClose = () =>
          setImmediate(() => (done(stdout) ? finish() : finish(new Error(`exited before ${what}${describeOutput()}`))))
        function finish(error?: Error) {
          clearTimeout(timer)
          child.stdout!.off('data', check)
          child.off('close', onClose)
          if (error) reject(error)
          else resolve(stdout)
        }
        child.stdout!.on('data', check)
        child.once('close', onClose)
        check()
      }),
    exit: (timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`did not exit within ${timeoutMs} ms${describeOutput()}`)),
          timeoutMs,
        )
        void exited.then((result) => {
          clearTimeout(timer)
          resolve(result)
        })
      }),
  }
}

export const LISTENING = /listening on (http:\/\/(?:127\.0\.0\.1|0\.0\.0\.0):(\d+))/

/** Waits for the "listening on" line; returns the URL and port it names. */
export async function listening(cli: Cli): Promise<{ url: string; port: number }> {
  const stdout = await cli.waitForOutput((text) => LISTENING.test(text), '"listening on" line')
  const [, url, port] = LISTENING.exec(stdout)!
  return { url: url!, port: Number(port) }
}

/** Kills every program a test started and left running (call it in `afterEach`). */
export function killChildren(): void {
  for (const child of children) child.kill('SIGKILL')
  children.clear()
}
