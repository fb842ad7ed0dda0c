// The standalone figure's load generator: CONNECTIONS requests in flight, each connection kept alive, for a fixed
// time. @note Not autocannon: the project cannot add a dependency for the bench alone, and what the figure needs is
// forty lines over undici's Pool (which the project has through @apidevtools/json-schema-ref-parser, a dev
// dependency's) or, without it, node:http's keep-alive Agent, slower at the client end.
import { Agent, get } from 'node:http'
import { CONNECTIONS } from './shared.mjs'

/**
 * @typedef {{ rate: number, failed: number, bytes: number }} Round What a round measured: requests/s answered 200,
 *   how many were not 200, and the length of the last answer.
 * @typedef {{ round(path: string, headers: Record<string, string>, ms: number): Promise<Round>, close(): Promise<void> }} Client
 * @typedef {{ status: number, bytes: number }} Answer
 */

/**
 * Requests for `ms`, CONNECTIONS at once, each sent as soon as the one before it on its connection is answered.
 * @param {number} ms
 * @param {() => Promise<Answer>} one
 * @returns {Promise<Round>}
 */
async function inFlight(ms, one) {
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

/** The load generator: its name (for the table) and a client per server URL. */
export async function loadGenerator() {
  /** @type {any} undici is no dependency of the project's own: typed as it may be absent. */
  const undici = await import('undici').catch(() => undefined)
  if (undici) {
    return {
      name: 'undici Pool',
      /** @param {string} url @returns {Client} */
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
  return {
    name: 'node:http keep-alive',
    /** @param {string} url @returns {Client} */
    client(url) {
      const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS })
      const target = new URL(url)
      return {
        round: (path, headers, ms) =>
          inFlight(
            ms,
            () =>
              new Promise((resolve, reject) => {
                const request = get({ host: target.hostname, port: target.port, path, headers, agent }, (response) => {
                  let bytes = 0
                  response.on('data', (chunk) => {
                    bytes += chunk.length
                  })
                  response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes }))
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
