import { readFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { afterEach, expect, it } from 'vitest'
import { killChildren, listening, runCli } from './support/cli.js'

/*
 * What a flood of big headers costs the command in memory: its peak RSS stays within twice the journals' budget
 * (--journal-bytes) over its RSS at rest, as docs/security.md says. The flood of issue 43: 16,000 requests with a
 * 60 KiB header over 40 session names under the default budget of 128 MiB, sent over 64 keep-alive connections; it
 * peaked at 450 to 950 MB (the bound: about 365 MB), 195 MB since. The growth comes from how V8 collects (see
 * `keepShortLivedObjectsYoung` in cli.ts) and did not show in every run of a smaller flood, or of fewer connections
 * (one run in three at 32). The program's own peak, as Linux counts it (VmHWM): no sampling misses it.
 */

const MiB = 1024 * 1024
const BUDGET = 128 * MiB
const REQUESTS = 16_000
const SESSIONS = 40
const CONNECTIONS = 64

afterEach(killChildren)

/** A figure of the process's status (VmRSS, VmHWM), in bytes. */
function statusOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]) * 1024
}

/** One GET over `agent`, read to the end: its status. */
function get(url: string, agent: Agent, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, { agent, headers }, (response) => {
      response.resume()
      response.on('end', () => resolve(response.statusCode!))
    })
      .on('error', reject)
      .end()
  })
}

it.runIf(process.platform === 'linux')(
  `keeps a flood of ${REQUESTS.toLocaleString('en-US')} requests with 60 KiB headers over ${SESSIONS} sessions within twice the journal budget over the RSS at rest`,
  { timeout: 180_000 },
  async () => {
    // The clock running, as by default: each session seeds a world of its own.
    const cli = runCli(['--port', '0', '--quiet', '--journal-bytes', String(BUDGET)])
    const { url } = await listening(cli)
    const pid = cli.child.pid!
    // At rest: listening, its first answer given, and a moment idle after its start.
    await fetch(`${url}/_sandbox/live`).then((response) => response.arrayBuffer())
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    const atRest = statusOf(pid, 'VmRSS')

    const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS })
    const pad = 'x'.repeat(60 * 1024)
    const statuses = new Map<number, number>()
    let next = 0
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (next < REQUESTS) {
          const i = next++
          const status = await get(`${url}/sessions/flood-${i % SESSIONS}/v1/me`, agent, { 'X-Pad': `${i}-${pad}` })
          statuses.set(status, (statuses.get(status) ?? 0) + 1)
        }
      }),
    )
    agent.destroy()
    expect(Object.fromEntries(statuses)).toEqual({ 401: REQUESTS })

    const peak = statusOf(pid, 'VmHWM')
    const journal = await (await fetch(`${url}/_sandbox/metrics`)).text()
    const journalBytes = Number(/^call_sandbox_journal_bytes (\d+)$/m.exec(journal)?.[1])
    const seen = `RSS at rest ${(atRest / MiB).toFixed(0)} MiB, peak ${(peak / MiB).toFixed(0)} MiB; the journals ${(journalBytes / MiB).toFixed(0)} MiB of ${BUDGET / MiB} MiB`
    // The flood filled a good part of the budget: a bound it never came near would prove nothing.
    expect(journalBytes, seen).toBeGreaterThan(BUDGET / 4)
    expect(peak, seen).toBeLessThanOrEqual(2 * BUDGET + atRest)
  },
)
