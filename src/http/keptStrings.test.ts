import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createSandbox } from '../handlers/createSandbox.js'
import { detached } from '../text/detached.js'
import { journalEntry } from './journalEntry.js'
import { type Matchable, matchRoute } from './matchRoute.js'
import { parseUrlQuery } from './parameters.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const ENTRIES = 200
/** A URL whose href is mostly its host: a Host header of 60,000 characters, as a client may send one. */
const urlWithLongHost = (i: number) =>
  new URL(`http://${'h'.repeat(60_000)}.test/v1/things/${'t'.repeat(20)}${i}?name=${'n'.repeat(20)}${i}`)

/** The heap the kept entries hold once the URLs they were read from are gone. */
function heldAfter(keep: (url: URL) => unknown): number {
  gc()
  const before = process.memoryUsage().heapUsed
  for (let i = 0; i < ENTRIES; i++) keep(urlWithLongHost(i))
  gc()
  return process.memoryUsage().heapUsed - before
}

// What the caches keep of a URL is its own. V8 cuts a substring of 13 characters or more as a slice of its string: a
// kept slice of the href kept 60 KB an entry alive (12 MB for these 200).
describe('detached', () => {
  it('gives the same text, a lone surrogate and all', () => {
    for (const text of ['', 'a', '/v1/calls/3f2b8c1e-9d4a-4e7b-8c2f-1a2b3c4d5e6f', 'a\uD800b\uDC00', '😀 é'])
      expect(detached(text)).toBe(text)
  })
})

describe('what the query and route caches keep of a URL', () => {
  it('a query string kept holds no more than itself', () => {
    const things = { method: 'GET', path: '/v1/things', query: z.object({ name: z.string().optional() }) }
    expect(heldAfter((url) => parseUrlQuery(things, url))).toBeLessThan(2_000_000)
  })

  it("a journal entry holds its path and query, not the href they were read from (which the journal's budget misses)", async () => {
    const sandbox = createSandbox({ now: '2026-11-20T12:00:00Z' })
    await sandbox.ready
    const entries: unknown[] = []
    const held = heldAfter((url) => {
      const request = { url: url.href, method: 'GET', headers: new Headers(), body: null, bodyUsed: false }
      const path = url.pathname
      entries.push(
        journalEntry(sandbox, { requestId: 'req_1', request, path, url, status: 200, key: null, started: 0 }),
      )
    })
    expect(entries).toHaveLength(ENTRIES)
    expect(held).toBeLessThan(2_000_000)
  })

  it('a path kept holds no more than itself, nor do its values', () => {
    const routes: Matchable[] = [{ method: 'GET', path: '/v1/things/:thing_id' }]
    expect(heldAfter((url) => matchRoute(routes, 'GET', url.pathname))).toBeLessThan(2_000_000)
  })
})
