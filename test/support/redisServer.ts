import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from './freePort.mjs'

/** Redis's settings for the tests and the bench: `appendfsync always`, loopback, no snapshots. */
const DURABLE_REDIS_CONF = fileURLToPath(new URL('durable-redis.conf', import.meta.url))

/** A redis-server of a test's own, on a free loopback port, in a temporary folder. */
export interface RedisServer {
  url: string
  port: number
  /** Kills it (SIGKILL: what a crash does) and waits for it to be gone. */
  kill(): Promise<void>
  /** Stops the process where it stands (SIGSTOP): a Redis that hangs, its connections open. */
  freeze(): void
  /** Lets a frozen Redis go on (SIGCONT). */
  thaw(): void
  /** Starts it again on the same port and folder: what it kept on disk comes back. */
  restart(): Promise<void>
  /** Stops it and removes its folder. */
  stop(): Promise<void>
}

/**
 * Starts Debian's `redis-server` (7.x) with `durable-redis.conf`: every write
 * appended and fsync'ed before Redis answers, what makes "acknowledged"
 * durable in Redis. Fails, never skips, when redis-server is missing.
 *
 * @example
 * const redis = await startRedis()
 * afterAll(() => redis.stop())
 */
export async function startRedis(): Promise<RedisServer> {
  if (spawnSync('redis-server', ['--version']).error) {
    throw new Error('redis-server is missing: install it (apt-get install redis-server); .ci/run does.')
  }
  const folder = mkdtempSync(join(tmpdir(), 'call-sandbox-redis-'))
  const port = await freePort()
  let child: ChildProcess | undefined
  const launch = async () => {
    child = spawn('redis-server', [DURABLE_REDIS_CONF, '--port', String(port), '--dir', folder], { stdio: 'ignore' })
    await waitForPort(port)
  }
  const kill = async () => {
    if (!child || child.exitCode !== null) return
    const exited = new Promise((resolve) => child!.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
  }
  await launch()
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
    restart: launch,
    stop: async () => {
      await kill()
      rmSync(folder, { recursive: true, force: true })
    },
  }
}

async function waitForPort(port: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      socket.once('connect', () => {
        socket.end()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
    if (open) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`redis-server did not listen on ${port} within 5 s.`)
}
