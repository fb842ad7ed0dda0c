import { beforeAll, describe, expect, it } from 'vitest'
import { createSandbox } from '../handlers/createSandbox.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import { readJsonObject } from './body.js'
import type { FetchRequest } from './FetchRequest.js'
import { journalEntry } from './journalEntry.js'
import { jsonReply } from './respond.js'

const KEY = 'Bearer sk_sandbox_all'
const ADMIN = 'adm1n-T0ken-very-secret-9876'

/** The entry of a GET (or of `init`'s request) answered 200, as the API plane makes it. */
function entryOf(sandbox: Sandbox, target: string, headers: Record<string, string>, request?: FetchRequest) {
  const url = new URL(target, 'http://127.0.0.1:3000')
  const sent = request ?? { url: url.href, method: 'GET', headers: new Headers(headers), body: null, bodyUsed: false }
  const reply = jsonReply('req_1', 200, { ok: true })
  return journalEntry(sandbox, {
    requestId: 'req_1',
    request: sent,
    path: url.pathname,
    url,
    status: 200,
    key: null,
    started: 0,
    reply,
  })
}

describe('journalEntry: a request like the last one', () => {
  let sandbox: Sandbox
  beforeAll(async () => {
    sandbox = createSandbox({ now: '2026-11-20T12:00:00Z', adminToken: ADMIN })
    await sandbox.ready
  })

  it('shares the query and request side made for the last, frozen, when the query and every header are the same', () => {
    const first = entryOf(sandbox, '/v1/calls?limit=50', { authorization: KEY, 'user-agent': 'a' })
    const second = entryOf(sandbox, '/v1/calls?limit=50', { authorization: KEY, 'user-agent': 'a' })
    expect(second.request).toBe(first.request)
    expect(second.query).toBe(first.query)
    expect(second.request).toEqual({
      headers: { authorization: KEY, 'user-agent': 'a' },
      headers_truncated: false,
      body: null,
      body_truncated: false,
    })
    expect(Object.isFrozen(second.request) && Object.isFrozen(second.request!.headers)).toBe(true)
    expect(second.query).toEqual({ limit: '50' })
  })

  it('makes its own for any header or query that differs, and shows what this request sent', () => {
    entryOf(sandbox, '/v1/calls?limit=50', { authorization: KEY, 'user-agent': 'a' })
    const otherHeader = entryOf(sandbox, '/v1/calls?limit=50', { authorization: KEY, 'user-agent': 'b' })
    expect(otherHeader.request!.headers).toEqual({ authorization: KEY, 'user-agent': 'b' })
    const otherQuery = entryOf(sandbox, '/v1/calls?limit=5', { authorization: KEY, 'user-agent': 'b' })
    expect(otherQuery.query).toEqual({ limit: '5' })
    expect(otherQuery.request).toEqual(otherHeader.request)
    const fewer = entryOf(sandbox, '/v1/calls?limit=5', { authorization: KEY })
    expect(fewer.request!.headers).toEqual({ authorization: KEY })
  })

  it('never shares what a rule hid: a credential the sandbox did not issue, the admin token, a long value', () => {
    const unknown = { authorization: 'Bearer sk_live_UNKNOWN0000abcd' }
    const cases: [string, Record<string, string>][] = [
      ['/v1/calls', unknown],
      ['/v1/calls', { 'x-note': `sent ${ADMIN}` }],
      [`/v1/calls?token=${ADMIN}`, {}],
      ['/v1/calls', { 'x-long': 'x'.repeat(2_000) }],
    ]
    for (const [target, headers] of cases) {
      const first = entryOf(sandbox, target, headers)
      const second = entryOf(sandbox, target, headers)
      expect(second.request).not.toBe(first.request)
      expect([second.request, second.query]).toEqual([first.request, first.query])
    }
    expect(entryOf(sandbox, '/v1/calls', unknown).request!.headers.authorization).toBe('Bearer …abcd')
    expect(entryOf(sandbox, `/v1/calls?token=${ADMIN}`, {}).query).toEqual({ token: '(admin token)' })
  })

  it('shares nothing across worlds, nor with a request that had a body', async () => {
    const other = createSandbox({ now: '2026-11-20T12:00:00Z' })
    await other.ready
    const here = entryOf(sandbox, '/v1/calls', { authorization: KEY })
    expect(entryOf(other, '/v1/calls', { authorization: KEY }).request).not.toBe(here.request)
    const url = 'http://127.0.0.1:3000/v1/contacts'
    const post = new Request(url, {
      method: 'POST',
      headers: { authorization: KEY, 'content-type': 'application/json' },
      body: '{"name":"Ada"}',
    })
    await readJsonObject(post)
    const posted = entryOf(sandbox, url, {}, post)
    expect(posted.request!.body).toBe('{"name":"Ada"}')
    expect(entryOf(sandbox, url, {}, post).request).not.toBe(posted.request)
  })
})
