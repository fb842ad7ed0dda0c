import { describe, expect, it } from 'vitest'
import { createSandbox, defaultOrganizations } from '../src/index.js'
import { MemoryRuleBook, RuleBudget } from '../src/sandbox/FaultRules.js'
import { API_METHODS, MAX_FAULT_RULES, MAX_FAULT_RULES_IN_SERVER } from '../src/schemas/faultRule.js'
import { routes } from '../src/http/routes.js'
import { dataOf, postJson, using } from './support/control.js'
import { inProcess, overHttp, type Transport } from './support/transports.js'

/*
 * Fault rules (`/_sandbox/faults`, `sandbox.faults`): a test makes API requests fail, slow down or go unanswered
 * from outside the client. Every table runs in process (MSW) and over HTTP. Timings are only checked as lower bounds.
 */

const named = [
  ['in process', inProcess],
  ['over HTTP', overHttp],
] as const

const addRule = (api: Transport, rule: unknown, root = '') => postJson(api, `${root}/_sandbox/faults`, rule)
/** The rule a POST made (201). */
const added = (answer: Awaited<ReturnType<typeof addRule>>) => dataOf(answer, 201)
const rulesOf = async (api: Transport, root = '') => dataOf(await api.request(`${root}/_sandbox/faults`, { key: null }))
const journalOf = async (api: Transport, root = '') =>
  dataOf(await api.request(`${root}/_sandbox/requests`, { key: null }))
const statusesOf = async (api: Transport, path: string, count: number, key?: string | null) => {
  const statuses: number[] = []
  for (let i = 0; i < count; i++) statuses.push((await api.request(path, key === undefined ? {} : { key })).status)
  return statuses
}

describe.each(named)('fault rules, %s', (_name, make) => {
  it('the issue’s example: 429 twice with Retry-After and the rate-limit headers, then the answer as before', () =>
    using(make, {}, async (api) => {
      const answer = await addRule(api, { path: '/v1/calls', status: 429, times: 2 })
      const rule = added(answer)
      expect(rule).toMatchObject({ path: '/v1/calls', status: 429, after: 0, times: 2, probability: 1, hits: 0 })
      expect(rule.id).toMatch(/^flt_\d+$/)
      expect(answer.headers.get('location')).toBe(`/_sandbox/faults/${rule.id}`)

      for (let i = 0; i < 2; i++) {
        const limited = await api.request('/v1/calls')
        expect(limited.status).toBe(429)
        expect(limited.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' })
        expect(limited.body.error.message).toContain(rule.id)
        expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
        expect(limited.headers.get('x-ratelimit-remaining')).toBe('0')
        expect(limited.headers.get('x-ratelimit-limit')).not.toBeNull()
        expect(Number(limited.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0)
      }
      const third = await api.request('/v1/calls')
      expect(third.status).toBe(200)
      expect(third.headers.get('x-ratelimit-limit')).toBeNull()

      expect(await rulesOf(api)).toEqual([{ ...rule, hits: 2, remaining: 0 }])
    }))

  it.each([
    [500, 'internal_error', 'api_error'],
    [503, 'service_unavailable', 'api_error'],
    [404, 'not_found', 'invalid_request_error'],
    [403, 'insufficient_scope', 'permission_error'],
    [409, 'contact_exists', 'invalid_request_error'],
  ] as const)(
    'status %i answers its error in the envelope, named in the journal and counted in usage',
    (status, code, type) =>
      using(make, {}, async (api) => {
        const rule = added(await addRule(api, { path: '/v1/me', status }))
        const failed = await api.request('/v1/me')
        expect(failed.status).toBe(status)
        expect(failed.body.error).toMatchObject({ code, type })
        const [entry] = await journalOf(api)
        expect(entry).toMatchObject({ path: '/v1/me', status, fault: rule.id })
        const usage = dataOf(await api.request('/_sandbox/usage', { key: null }))
        const me = usage[0].endpoints.find((endpoint: { path: string }) => endpoint.path === '/v1/me')
        expect(me.statuses).toEqual({ [status]: 1 })
        expect((await api.request('/v1/me')).status).toBe(200)
      }),
  )

  it('matches a prefix, a method and a key, and lets the first `after` matches through; null times: until removed', () =>
    using(make, {}, async (api) => {
      const rule = added(
        await addRule(api, {
          path: '/v1/calls*',
          method: 'GET',
          key: 'sk_sandbox_calls',
          after: 2,
          times: null,
          status: 503,
        }),
      )
      expect(rule.remaining).toBeNull()
      expect(await statusesOf(api, '/v1/calls?limit=1', 5, 'sk_sandbox_calls')).toEqual([200, 200, 503, 503, 503])
      const calls = dataOf(await api.request('/v1/calls?limit=1'))
      expect((await api.request(`/v1/calls/${calls[0].id}`, { key: 'sk_sandbox_calls' })).status).toBe(503)
      // Another key, another path, another method: untouched.
      expect(await statusesOf(api, '/v1/calls?limit=1', 2, 'sk_sandbox_all')).toEqual([200, 200])
      expect((await api.request('/v1/me', { key: 'sk_sandbox_calls' })).status).toBe(200)
      const removed = await api.request(`/_sandbox/faults/${rule.id}`, { method: 'DELETE', key: null })
      expect(dataOf(removed)).toMatchObject({ id: rule.id, hits: 4, remaining: null })
      expect((await api.request('/v1/calls?limit=1', { key: 'sk_sandbox_calls' })).status).toBe(200)
    }))

  it('fails a request without a key before its 401, and never hides a 404', () =>
    using(make, {}, async (api) => {
      await addRule(api, { path: '/v1/*', status: 500, times: 2 })
      expect((await api.request('/v1/nowhere')).status).toBe(404)
      expect((await api.request('/v1/me', { key: null })).status).toBe(500)
      expect((await api.request('/v1/me', { key: null })).status).toBe(500)
      expect((await api.request('/v1/me', { key: null })).status).toBe(401)
    }))

  it('a 409 met by a request without a key names no record; with a key, its own organization’s newest contact', () =>
    using(make, {}, async (api) => {
      await addRule(api, { path: '/v1/contacts', method: 'POST', status: 409, times: null })
      const stranger = await postJson(api, '/v1/contacts', {}, { key: null })
      expect(stranger.status).toBe(409)
      expect(stranger.body.error.details).toEqual({ contact_id: null })
      const newest = dataOf(await api.request('/v1/contacts?limit=1'))[0]
      const own = await postJson(api, '/v1/contacts', {}, { key: 'sk_sandbox_all' })
      expect(own.body.error.details).toEqual({ contact_id: newest.id })
    }))

  it('on a server with an admin token, only a request with a key or the token makes a session', () =>
    using(make, { adminToken: 'admin-token-for-sessions' }, async (api) => {
      const admin = { Authorization: 'Bearer admin-token-for-sessions' }
      const stranger = await api.request('/sessions/by-stranger/v1/me', { key: null })
      expect(stranger.status).toBe(401)
      expect(stranger.body.error.message).toMatch(/does not exist yet/)
      expect((await api.request('/sessions/by-stranger/_sandbox/health', { key: null })).status).toBe(401)
      expect((await api.request('/sessions/by-stranger/openapi.json', { key: null })).status).toBe(200)
      expect(
        dataOf(await api.request('/_sandbox/sessions', { key: null, headers: admin })).map(
          (s: { name: string }) => s.name,
        ),
      ).not.toContain('by-stranger')
      expect((await api.request('/sessions/by-key/v1/me')).status).toBe(200)
      expect((await api.request('/sessions/by-token/_sandbox/health', { key: null, headers: admin })).status).toBe(200)
      // Made, a session answers a request without a key as any root does: 401 from its own world.
      expect((await api.request('/sessions/by-key/v1/me', { key: null })).body.error.code).toBe('unauthorized')
    }))

  it('delay_ms: a slow answer, then the real one', () =>
    using(make, {}, async (api) => {
      const rule = added(await addRule(api, { path: '/v1/me', delay_ms: 300 }))
      const started = performance.now()
      const slow = await api.request('/v1/me')
      expect(performance.now() - started).toBeGreaterThanOrEqual(290)
      expect(slow.status).toBe(200)
      expect((await journalOf(api))[0]).toMatchObject({ status: 200, fault: rule.id })
    }))

  it('"error": "network" closes the connection without an answer, journaled with status 0', () =>
    using(make, {}, async (api) => {
      const rule = added(await addRule(api, { path: '/v1/me', error: 'network' }))
      await expect(api.request('/v1/me')).rejects.toThrow(TypeError)
      expect((await api.request('/v1/me')).status).toBe(200)
      const [answered, dropped] = await journalOf(api)
      expect(answered.status).toBe(200)
      expect(dropped).toMatchObject({ path: '/v1/me', status: 0, fault: rule.id })
    }))

  it('probability: some matches fail, drawn from the seed, so the run repeats after a reset', () =>
    using(make, {}, async (api) => {
      const run = async () => {
        const rule = added(await addRule(api, { path: '/v1/me', status: 500, times: null, probability: 0.5 }))
        expect(rule.id).toBe('flt_1')
        return statusesOf(api, '/v1/me', 40)
      }
      const first = await run()
      expect(first.filter((status) => status === 500).length).toBeGreaterThan(5)
      expect(first.filter((status) => status === 200).length).toBeGreaterThan(5)
      await postJson(api, '/_sandbox/reset')
      expect(await rulesOf(api)).toEqual([])
      expect(await run()).toEqual(first)
    }))

  it('DELETE /_sandbox/faults removes them all; an unknown id is a 404; ids go on', () =>
    using(make, {}, async (api) => {
      await addRule(api, { path: '/v1/me', status: 500 })
      await addRule(api, { path: '/v1/calls', status: 500 })
      const cleared = await api.request('/_sandbox/faults', { method: 'DELETE', key: null })
      expect(dataOf(cleared)).toEqual({ removed: 2 })
      expect(await rulesOf(api)).toEqual([])
      expect((await api.request('/v1/me')).status).toBe(200)
      const missing = await api.request('/_sandbox/faults/flt_1', { method: 'DELETE', key: null })
      expect(missing.status).toBe(404)
      expect(missing.body.error).toMatchObject({ code: 'not_found', param: 'fault_id' })
      expect(added(await addRule(api, { path: '/v1/me', status: 500 })).id).toBe('flt_3')
    }))

  it.each([
    ['no path', { status: 500 }, 'path'],
    ['a path without /', { path: 'v1/me', status: 500 }, 'path'],
    ['a path over 512 characters', { path: `/${'x'.repeat(512)}`, status: 500 }, 'path'],
    ['no outcome', { path: '/v1/me' }, 'status'],
    ['two outcomes', { path: '/v1/me', status: 500, delay_ms: 10 }, 'status'],
    ['a success status', { path: '/v1/me', status: 200 }, 'status'],
    ['a status outside the contract', { path: '/v1/me', status: 418 }, 'status'],
    ['a delay over 60 s', { path: '/v1/me', delay_ms: 60_001 }, 'delay_ms'],
    ['another error', { path: '/v1/me', error: 'timeout' }, 'error'],
    ['times 0', { path: '/v1/me', status: 500, times: 0 }, 'times'],
    ['a fractional after', { path: '/v1/me', status: 500, after: 1.5 }, 'after'],
    ['a huge after', { path: '/v1/me', status: 500, after: 1e12 }, 'after'],
    ['probability 0', { path: '/v1/me', status: 500, probability: 0 }, 'probability'],
    ['probability over 1', { path: '/v1/me', status: 500, probability: 2 }, 'probability'],
    ['an unknown method', { path: '/v1/me', status: 500, method: 'BREW' }, 'method'],
    [
      'a method the API takes nowhere (HEAD is 405 before rules)',
      { path: '/v1/calls', status: 503, method: 'HEAD' },
      'method',
    ],
    ['an unknown field', { path: '/v1/me', status: 500, when: 'now' }, 'when'],
  ])('refuses %s: 422 naming the field', (_what, rule, field) =>
    using(make, {}, async (api) => {
      const refused = await addRule(api, rule)
      expect(refused.status).toBe(422)
      expect(refused.body.error.code).toBe('validation_failed')
      expect(refused.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field)
      expect(await rulesOf(api)).toEqual([])
    }),
  )

  it('refuses a key the sandbox did not issue, without echoing it', () =>
    using(make, {}, async (api) => {
      const secret = 'sk_live_0123456789abcdefSECRET'
      const refused = await addRule(api, { path: '/v1/me', status: 500, key: secret })
      expect(refused.status).toBe(422)
      expect(refused.body.error.details).toEqual([expect.objectContaining({ field: 'key', code: 'invalid_choice' })])
      expect(JSON.stringify(refused.body)).not.toContain('SECRET')
    }))

  it(`keeps at most ${MAX_FAULT_RULES} rules: past them 409 fault_rule_limit_reached`, () =>
    using(make, {}, async (api) => {
      for (let i = 0; i < MAX_FAULT_RULES; i++) await api.sandbox.faults.add({ path: `/v1/x${i}`, status: 500 })
      const refused = await addRule(api, { path: '/v1/me', status: 500 })
      expect(refused.status).toBe(409)
      expect(refused.body.error).toMatchObject({
        code: 'fault_rule_limit_reached',
        details: { limit: MAX_FAULT_RULES },
      })
    }))

  it('each session has its own rules, and its reset clears them', () =>
    using(make, {}, async (api) => {
      const root = '/sessions/faults-a'
      await addRule(api, { path: '/v1/me', status: 503, times: null }, root)
      expect((await api.request(`${root}/v1/me`)).status).toBe(503)
      expect((await api.request('/v1/me')).status).toBe(200)
      expect((await api.request('/sessions/faults-b/v1/me')).status).toBe(200)
      expect(await rulesOf(api)).toEqual([])
      expect((await journalOf(api, root))[0]).toMatchObject({ status: 503, fault: 'flt_1' })
      await postJson(api, `${root}/_sandbox/reset`)
      expect(await rulesOf(api, root)).toEqual([])
      expect((await api.request(`${root}/v1/me`)).status).toBe(200)
    }))
})

describe('sandbox.faults, in process', () => {
  it('adds typed rules that remove themselves, lists and clears them', async () => {
    const sandbox = createSandbox({ now: '2026-11-20T12:00:00Z' })
    try {
      await sandbox.ready
      const rule = await sandbox.faults.add({ path: '/v1/calls*', status: 429, times: 2 })
      expect(rule).toMatchObject({ id: 'flt_1', times: 2, hits: 0, remaining: 2 })
      expect(await sandbox.faults.list()).toHaveLength(1)
      expect(await rule.remove()).toBe(true)
      expect(await rule.remove()).toBe(false)
      await sandbox.faults.add({ path: '/v1/me', delay_ms: 5 })
      await sandbox.faults.clear()
      expect(await sandbox.faults.list()).toEqual([])
      await expect(sandbox.faults.add({ path: '/v1/me' })).rejects.toMatchObject({ status: 422 })
    } finally {
      sandbox.stop()
    }
  })
})

describe('fault rules and what the sandbox did not issue, and sessions put away', () => {
  it("shows a key of the user's own organizations by its last 4, and still matches it", () => {
    const own = 'team_alpha_key_5c1d2e3f'
    const organizations = defaultOrganizations.map((organization, i) => ({
      ...organization,
      keys: [{ key: i === 0 ? own : `team_beta_key_${i}9a8b7c6d`, scopes: organization.keys[0]!.scopes }],
    }))
    return using(inProcess, { organizations }, async (api) => {
      const rule = added(await addRule(api, { path: '/v1/me', key: own, status: 500 }))
      expect(rule.key).toBe('…2e3f')
      expect(JSON.stringify(await rulesOf(api))).not.toContain(own)
      expect((await api.request('/v1/me', { key: own })).status).toBe(500)
    })
  })

  it("keeps a session's rules while its world is put away (past maxSessions) and brought back", () =>
    using(inProcess, { maxSessions: 1 }, async (api) => {
      await addRule(api, { path: '/v1/me', status: 503, times: 2 }, '/sessions/kept-a')
      expect((await api.request('/sessions/kept-a/v1/me')).status).toBe(503)
      expect((await api.request('/sessions/kept-b/v1/me')).status).toBe(200)
      expect((await api.request('/sessions/kept-a/v1/me')).status).toBe(503)
      expect((await api.request('/sessions/kept-a/v1/me')).status).toBe(200)
    }))
})

describe('fault rules a server holds together', () => {
  it('are the methods the API takes, no more', () => {
    expect([...API_METHODS].sort()).toEqual([...new Set(routes.map(({ method }) => method))].sort())
  })

  it('books sharing a budget refuse past it with 409, and give back what they remove or clear', async () => {
    const budget = new RuleBudget(3)
    const [a, b] = [new MemoryRuleBook(budget), new MemoryRuleBook(budget)]
    const rule = { path: '/v1/me', after: 0, times: 1, probability: 1, status: 500 as const }
    await a.add(rule)
    const second = await a.add(rule)
    await b.add(rule)
    await expect(b.add(rule)).rejects.toMatchObject({ status: 409, code: 'fault_rule_limit_reached' })
    await a.remove(second?.id ?? '')
    await b.add(rule)
    await expect(a.add(rule)).rejects.toMatchObject({ code: 'fault_rule_limit_reached' })
    await b.clear()
    expect(await a.add(rule)).toBeDefined()
  })

  it(`${MAX_FAULT_RULES_IN_SERVER} in all across sessions; an ended session gives its rules back`, async () => {
    const sandbox = createSandbox()
    try {
      const sessions = MAX_FAULT_RULES_IN_SERVER / MAX_FAULT_RULES
      for (let n = 0; n < sessions; n++) {
        const world = await sandbox.sessions.open(`full-${n}`)
        for (let i = 0; i < MAX_FAULT_RULES; i++) await world.faults.add({ path: `/v1/x${i}`, status: 500 })
      }
      const more = await sandbox.sessions.open('one-more')
      await expect(more.faults.add({ path: '/v1/me', status: 500 })).rejects.toMatchObject({
        status: 409,
        code: 'fault_rule_limit_reached',
        message: expect.stringContaining(`hold ${MAX_FAULT_RULES_IN_SERVER} fault rules together`),
      })
      await sandbox.sessions.delete('full-0')
      expect(await more.faults.add({ path: '/v1/me', status: 500 })).toMatchObject({ id: 'flt_1' })
    } finally {
      sandbox.stop()
    }
  })
})

describe('a removal in a fleet', () => {
  it('answers the rule it removed, when another server replaced the one of that id just before', async () => {
    const api = await inProcess()
    try {
      const book = new MemoryRuleBook()
      const remove = book.remove.bind(book)
      // What another server of a fleet may do between this server's reads and its removal: a reset, then a new flt_1.
      let replaced = false
      book.remove = async (id) => {
        if (!replaced) {
          replaced = true
          await book.clear(true)
          await book.add({ path: '/v1/leads/new', after: 0, times: 1, probability: 1, status: 500 })
        }
        return remove(id)
      }
      api.sandbox.faults.keepIn(book)
      expect(added(await addRule(api, { path: '/v1/leads/old', status: 500 }))).toMatchObject({ id: 'flt_1' })
      const answer = await api.request('/_sandbox/faults/flt_1', { method: 'DELETE', key: null })
      expect(dataOf(answer)).toMatchObject({ id: 'flt_1', path: '/v1/leads/new' })
      expect(await rulesOf(api)).toEqual([])
    } finally {
      await api.close()
    }
  })
})
