/**
 * The Python example (examples/python-sync/sync.py, the standard library only) against the one file: a cursor walk
 * through 429s and 5xx answers, then a run with `since` that finds a new call and one that ended. python3 is needed:
 * missing, the test fails (.ci/run installs it).
 */
import { execFile, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { killChildren } from '../support/cli.js'
import { emptyFolderWith, KEY, ONE_FILE, ROOT, simulateCall, startOneFile } from './programs.js'

afterEach(killChildren)

const SYNC = join(ROOT, 'examples', 'python-sync', 'sync.py')
const NOW = '2026-11-20T12:00:00Z'

/** Every call id of the key's account, from a sandbox with no faults. */
async function allIds(url: string): Promise<string[]> {
  const ids: string[] = []
  for (let query = 'limit=100'; ; ) {
    const page = await (await fetch(`${url}/v1/calls?${query}`, { headers: KEY })).json()
    ids.push(...page.data.map(({ id }: { id: string }) => id))
    if (!page.has_more) return ids
    query = `limit=100&cursor=${page.next_cursor}`
  }
}

describe('examples/python-sync', () => {
  it('has python3 to run it', () => {
    const python = spawnSync('python3', ['--version'], { encoding: 'utf8' })
    expect(python.error, 'python3 is missing: install it (apt-get install python3); .ci/run does').toBeUndefined()
    expect(python.stdout).toMatch(/^Python 3\.(9|\d\d)\./)
  })

  it('retries exactly the faults a test arranged for its session: two 429s, a 503 on the third page, a dropped page', async () => {
    const folder = emptyFolderWith(ONE_FILE, 'python-faults')
    const { url } = await startOneFile(folder, ['--quiet', '--now', NOW])
    const session = `${url}/sessions/python-faults`
    const rules = [
      { path: '/v1/calls', status: 429, times: 2 },
      { path: '/v1/calls*', after: 4, status: 503 },
      { path: '/v1/calls*', after: 6, error: 'network' },
    ]
    for (const rule of rules) {
      const added = await fetch(`${session}/_sandbox/faults`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(rule),
      })
      expect(added.status).toBe(201)
    }
    const args = [SYNC, '--base-url', session, '--key', 'sk_sandbox_all', '--state', join(folder, 'calls.json')]
    const { stdout } = await promisify(execFile)('python3', [...args, '--page-size', '20'], { cwd: folder })
    const expected = await allIds(url)
    expect(JSON.parse(stdout)).toMatchObject({
      calls: expected.length,
      new: expected.length,
      retried: { '429': 2, '5xx': 1, connection: 1 },
    })
    const listed = await (await fetch(`${session}/_sandbox/faults`)).json()
    expect(listed.data.map(({ hits }: { hits: number }) => hits)).toEqual([2, 1, 1])
    const failed = await (await fetch(`${session}/_sandbox/requests?path=/v1/calls*&status=4xx`)).json()
    expect(failed.data.map(({ fault }: { fault?: string }) => fault)).toEqual(['flt_1', 'flt_1'])
  })

  it('walks every page through 429s and 5xx, then finds with since a new call and calls that ended', async () => {
    const folder = emptyFolderWith(ONE_FILE, 'python-sync')
    const plain = await startOneFile(folder, ['--quiet', '--now', NOW])
    // Two requests a second and three in ten failed: a walk of 15 pages of 20 meets both, however slow the machine.
    const faulty = await startOneFile(folder, ['--quiet', '--now', NOW, '--rate-limit', '2/s', '--error-rate', '0.3'])
    const session = `${faulty.url}/sessions/python-sync`
    const state = join(folder, 'calls.json')
    const sync = async () => {
      const args = [SYNC, '--base-url', session, '--key', 'sk_sandbox_all', '--state', state, '--page-size', '20']
      const { stdout } = await promisify(execFile)('python3', args, { cwd: folder })
      return JSON.parse(stdout)
    }

    const first = await sync()
    const expected = await allIds(plain.url)
    expect(first).toMatchObject({ calls: expected.length, new: expected.length, changed: 0 })
    expect(Object.keys(JSON.parse(readFileSync(state, 'utf8')).calls).sort()).toEqual(expected.sort())
    expect(first.retried['429']).toBeGreaterThan(0)
    expect(first.retried['5xx']).toBeGreaterThan(0)
    const inProgress = Object.values(JSON.parse(readFileSync(state, 'utf8')).calls).filter(
      (call) => (call as { status: string }).status === 'in-progress',
    )
    expect(inProgress.length).toBeGreaterThan(0)

    const call = await simulateCall(session)
    const moved = await fetch(`${session}/_sandbox/clock`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ advance_seconds: 3600 }),
    })
    expect(moved.status).toBe(200)
    const second = await sync()
    expect(second).toMatchObject({ calls: expected.length + 1, new: 1, changed: inProgress.length })
    expect(Object.keys(JSON.parse(readFileSync(state, 'utf8')).calls)).toContain(call.id)

    // The journal says what the client sent: the second run's list asked for calls since the first run's newest.
    const journal = await (await fetch(`${session}/_sandbox/requests?path=/v1/calls&status=200`)).json()
    const sinces = journal.data.map(({ query }: { query: Record<string, string> }) => query.since)
    expect(sinces).toContain(first.newest)
    expect(journal.data.every(({ key }: { key: string }) => key === 'sk_sandbox_all')).toBe(true)
  })
})
