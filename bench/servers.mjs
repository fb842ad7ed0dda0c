// The command under load: started on a free port at the bench's instant, asked
// over keep-alive sockets, and measured in requests per second.
import { Agent, request } from 'node:http'
import { launch, waitFor } from './children.mjs'

export const NOW = '2026-11-20T12:00:00Z'
const HEADERS = { Authorization: 'Bearer sk_sandbox_all' }
const agent = new Agent({ keepAlive: true, maxSockets: 64 })

/**
 * The built command in a process of its own (killed by killChildren()), listening: its URL and how long it took to
 * listen. `env` replaces the bench's environment (proxy.mjs turns the compile cache off with it).
 * @param {string[]} args
 * @param {{ timeoutMs?: number, env?: NodeJS.ProcessEnv }} [options]
 */
export async function serve(args, { timeoutMs = 60_000, env } = {}) {
  const child = launch(
    process.execPath,
    ['dist/bin/call-sandbox.js', '--port', '0', '--now', NOW, '--quiet', ...args],
    env ? { env } : {},
  )
  const started = performance.now()
  const [, url] = await waitFor(child, /listening on (http:\/\/\S+)/, timeoutMs)
  return { child, url, startMs: performance.now() - started }
}

/**
 * One request with the first key over the shared agent, its answer read to the end: its status.
 * @param {string} url
 * @param {string} method
 * @param {string} path
 * @param {string} [body]
 * @returns {Promise<number | undefined>}
 */
export function send(url, method, path, body) {
  return new Promise((resolve, reject) => {
    const target = new URL(path, url)
    const headers = body ? { ...HEADERS, 'Content-Type': 'application/json' } : HEADERS
    const sent = request(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method, headers, agent },
      (response) => {
        response.resume()
        response.on('end', () => resolve(response.statusCode))
        response.on('error', reject)
      },
    )
    sent.on('error', reject)
    sent.end(body)
  })
}

/** Closes the kept-alive sockets, so the bench can exit. */
export function closeConnections() {
  agent.destroy()
}

/**
 * Reads of a page of calls per second over `ms`, `connections` at once, spread over `urls` and over the API `roots`
 * (the bare root, or sessions' `/sessions/<name>`) in turn.
 * @param {string[]} urls
 * @param {{ connections?: number, ms?: number, roots?: string[] }} [options]
 */
export async function readRate(urls, { connections = 8, ms = 3_000, roots = [''] } = {}) {
  let done = 0
  const start = performance.now()
  const end = start + ms
  await Promise.all(
    Array.from({ length: connections }, async (_, i) => {
      const url = urls[i % urls.length]
      const root = roots[i % roots.length]
      while (performance.now() < end) {
        const status = await send(url, 'GET', `${root}/v1/calls?limit=20`)
        if (status !== 200) throw new Error(`GET /v1/calls: ${status}`)
        done++
      }
    }),
  )
  return done / ((performance.now() - start) / 1000)
}

export { freePort } from '../test/support/freePort.mjs'
