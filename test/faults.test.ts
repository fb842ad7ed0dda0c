import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { createSandbox } from '../src/index.js'
import { dataOf, postJson, timed, using } from './support/control.js'
import {
  inProcess,
  NOW,
  ORG_1,
  ORG_2,
  overHttp,
  transports,
  type Answer,
  type Transport,
} from './support/transports.js'

/*
 * Faults a client can ask for or a sandbox can be given (contract section
 * 8): `Prefer: code=` and `delay=`, the latency option, the seeded error
 * rate, the simulated rate limit, and live mode. Every table runs in process
 * (MSW) and over HTTP. Timings are only ever checked as lower bounds.
 */

const named = transports.map((make) => [make.name === 'inProcess' ? 'in process' : 'over HTTP', make] as const)
const KEY_OF: Record<string, string> = { [ORG_1]: 'sk_sandbox_all', [ORG_2]: 'sk_sandbox_org2' }
const MINUTE = 60_000

/** The forceable statuses: their error code and type. */
const FORCEABLE = [
  [400, 'invalid_parameter', 'invalid_request_error'],
  [401, 'unauthorized', 'authentication_error'],
  [403, 'insufficient_scope', 'permission_error'],
  [404, 'not_found', 'invalid_request_error'],
  [405, 'method_not_allowed', 'invalid_request_error'],
  [409, 'contact_exists', 'invalid_request_error'],
  [413, 'payload_too_large', 'invalid_request_error'],
  [415, 'unsupported_media_type', 'invalid_request_error'],
  [422, 'validation_failed', 'invalid_request_error'],
  [429, 'rate_limited', 'rate_limit_error'],
  [500, 'internal_error', 'api_error'],
  [503, 'service_unavailable', 'api_error'],
] as const

function retryAfter(answer: Answer): number {
  const value = answer.headers.get('retry-after')
  expect(value).toMatch(/^\d+$/)
  return Number(value)
}

describe.each(named)('Prefer, %s', (_name, make) => {
  let api: Transport
  beforeAll(async () => {
    api = await make()
  })
  afterAll(() => api.close())
  beforeEach(() => api.sandbox.reset())

  const prefer = (value: string, path = '/v1/calls?limit=1', options: { key?: string | null; method?: string } = {}) =>
    api.request(path, { ...options, headers: { Prefer: value } })

  it.each(FORCEABLE)('code=%i answers that status with %s (%s), in the error envelope', async (status, code, type) => {
    const answer = await prefer(`code=${status}`)
    expect(answer.status).toBe(status)
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/)
    expect(Object.keys(answer.body).sort()).toEqual(['error', 'meta'])
    expect(answer.body.error).toMatchObject({ type, code, message: expect.any(String) })
    expect(answer.body.meta.request_id).toBe(answer.headers.get('x-request-id'))
    expect(answer.body.meta.timestamp).toBe(NOW)
    expect(answer.headers.get('preference-applied')).toBe(`code=${status}`)
    // The headers of that status.
    expect(answer.headers.get('www-authenticate')).toBe(status === 401 ? 'Bearer' : null)
    if (status === 405) expect(answer.headers.get('allow')).toBe('GET')
    else expect(answer.headers.get('allow')).toBeNull()
    if (status === 429 || status === 503) expect(retryAfter(answer)).toBeGreaterThanOrEqual(1)
    else expect(answer.headers.get('retry-after')).toBeNull()
    // It is journaled as what it answered.
    expect(api.sandbox.journal.entries(1)[0]).toMatchObject({ path: '/v1/calls', status })
  })

  it('code=409 points details.contact_id at a real contact of the key’s organization', async () => {
    for (const key of ['sk_sandbox_all', 'sk_sandbox_org2']) {
      const answer = await prefer('code=409', '/v1/contacts', { key })
      expect(answer.status).toBe(409)
      const contactId = answer.body.error.details.contact_id
      expect(contactId).toMatch(/^[0-9a-f-]{36}$/)
      expect((await api.request(`/v1/contacts/${contactId}`, { key })).status).toBe(200)
    }
  })

  it('code=422 lists details as [{ field, code, message }]; code=403 names the scope', async () => {
    const invalid = await prefer('code=422', '/v1/contacts', { method: 'POST' })
    expect(invalid.status).toBe(422)
    expect(invalid.body.error.details.length).toBeGreaterThan(0)
    for (const detail of invalid.body.error.details)
      expect(detail).toEqual({ field: expect.any(String), code: expect.any(String), message: expect.any(String) })
    const forbidden = await prefer('code=403', '/v1/leads')
    expect(forbidden.body.error.details).toMatchObject({ required_scope: 'leads:read' })
  })

  it('code=405 gives Allow with every method the path takes', async () => {
    const answer = await prefer('code=405', '/v1/contacts')
    expect(answer.status).toBe(405)
    expect(answer.headers.get('allow')).toBe('GET, POST')
    // As the real 405 of that path does.
    const real = await api.request('/v1/contacts', { method: 'DELETE' })
    expect(answer.headers.get('allow')).toBe(real.headers.get('allow'))
  })

  it('a forced error on a POST writes nothing', async () => {
    const contacts = api.sandbox.db.count('contacts')
    const answer = await api.request('/v1/contacts', {
      method: 'POST',
      headers: { Prefer: 'code=503', 'Content-Type': 'application/json' },
      body: JSON.stringify({ phone: '+14155550123' }),
    })
    expect(answer.status).toBe(503)
    expect(api.sandbox.db.count('contacts')).toBe(contacts)
    expect(
      (
        await api.request('/v1/contacts', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ phone: '+14155550123' }),
        })
      ).status,
    ).toBe(201)
  })

  it('code= the success status answers normally', async () => {
    const plain = await api.request('/v1/calls?limit=3')
    const list = await prefer('code=200', '/v1/calls?limit=3')
    expect(list.status).toBe(200)
    expect(list.body.data).toEqual(plain.body.data)
    expect(list.headers.get('preference-applied')).toBe('code=200')
    const created = await api.request('/v1/contacts', {
      method: 'POST',
      headers: { Prefer: 'code=201', 'Content-Type': 'application/json' },
      body: JSON.stringify({ phone: '+14155550123' }),
    })
    expect(created.status).toBe(201)
    expect(created.headers.get('location')).toBe(`/v1/contacts/${created.body.data.id}`)
    expect(created.headers.get('preference-applied')).toBe('code=201')
  })

  it('comes after the key check and before the scope check', async () => {
    // No key: the 401 of authentication, not the forced status.
    const anonymous = await prefer('code=500', '/v1/calls', { key: null })
    expect(anonymous.status).toBe(401)
    // An unknown path and method stay 404 and 405.
    expect((await prefer('code=500', '/v1/nowhere')).status).toBe(404)
    expect((await prefer('code=500', '/v1/calls', { method: 'PUT' })).status).toBe(405)
    // A forced status wins over the key's missing scope; asking for success does not get past it.
    expect((await prefer('code=503', '/v1/leads', { key: 'sk_sandbox_calls' })).status).toBe(503)
    expect((await prefer('code=200', '/v1/leads', { key: 'sk_sandbox_calls' })).status).toBe(403)
    // Bad parameters are not reached by a forced error, and still refused with success asked for.
    expect((await prefer('code=404', '/v1/calls?limit=500')).status).toBe(404)
    expect((await prefer('code=200', '/v1/calls?limit=500')).status).toBe(400)
  })

  it('delay=<ms> adds at least that latency, and says so', async () => {
    const answer = await timed(prefer('delay=300'))
    expect(answer.status).toBe(200)
    expect(answer.ms).toBeGreaterThanOrEqual(299)
    expect(answer.headers.get('preference-applied')).toBe('delay=300')
    expect(api.sandbox.journal.entries(1)[0]!.duration_ms).toBeGreaterThanOrEqual(299)
  })

  it('combines code= and delay= in one header, in either order', async () => {
    const answer = await timed(prefer('code=429, delay=200'))
    expect(answer.status).toBe(429)
    expect(answer.ms).toBeGreaterThanOrEqual(199)
    expect(retryAfter(answer)).toBeGreaterThanOrEqual(1)
    expect(answer.headers.get('preference-applied')).toBe('code=429, delay=200')
    const reversed = await timed(prefer('delay=150,code=503'))
    expect(reversed.status).toBe(503)
    expect(reversed.ms).toBeGreaterThanOrEqual(149)
    expect(reversed.headers.get('preference-applied')).toBe('delay=150, code=503')
  })

  it.each([
    'code=abc',
    'code=',
    'code=999',
    'code=302',
    'code=201',
    'code=2000',
    'code=5e2',
    'delay=-5',
    'delay=abc',
    'delay=',
    'delay=1.5',
    'delay=60001',
    'delay=100000',
    'code=500, delay=soon',
  ])('refuses Prefer: %s with 400 invalid_parameter, param Prefer', async (value) => {
    const answer = await timed(prefer(value))
    expect(answer.status).toBe(400)
    expect(answer.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'invalid_parameter',
      param: 'Prefer',
    })
    expect(answer.headers.get('preference-applied')).toBeNull()
  })

  it('refuses on a POST the success status of another endpoint', async () => {
    const answer = await api.request('/v1/contacts', {
      method: 'POST',
      headers: { Prefer: 'code=200', 'Content-Type': 'application/json' },
      body: '{"phone":"+14155550123"}',
    })
    expect(answer.status).toBe(400)
    expect(answer.body.error.param).toBe('Prefer')
  })

  it.each([
    'return=minimal',
    'respond-async',
    'wait=10',
    'handling=strict',
    'Code-Name=x',
    'codex=500',
    'return=representation; charset=utf-8',
  ])('ignores a preference it does not know: %s', async (value) => {
    const answer = await prefer(value)
    expect(answer.status).toBe(200)
    expect(answer.headers.get('preference-applied')).toBeNull()
  })

  it('applies its own preferences among unknown ones, whatever their case', async () => {
    const answer = await prefer('return=minimal, CODE=404, respond-async')
    expect(answer.status).toBe(404)
    expect(answer.headers.get('preference-applied')).toBe('code=404')
  })

  it('has no effect on the control plane', async () => {
    const answer = await api.request('/_sandbox/health', { key: null, headers: { Prefer: 'code=500' } })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('preference-applied')).toBeNull()
  })
})

describe.each(named)('the latency option, %s', (_name, make) => {
  it('fixed: every API answer, an error too, takes at least that long; the control plane none', () =>
    using(make, { latency: 200 }, async (api) => {
      expect(api.sandbox.options.latency).toEqual({ min: 200, max: 200 })
      for (const [path, key] of [
        ['/v1/me', 'sk_sandbox_all'],
        ['/v1/calls', null],
        ['/v1/nowhere', 'sk_sandbox_all'],
      ] as const) {
        const answer = await timed(api.request(path, { key }))
        expect(answer.ms, path).toBeGreaterThanOrEqual(199)
      }
      for (const entry of api.sandbox.journal.entries()) expect(entry.duration_ms).toBeGreaterThanOrEqual(199)
      // Prefer: delay= comes on top of it.
      expect((await timed(api.request('/v1/me', { headers: { Prefer: 'delay=100' } }))).ms).toBeGreaterThanOrEqual(299)
      // Every request meets the same latency.
      for (let i = 0; i < 10; i++) expect(api.sandbox.nextFaults().latencyMs).toBe(200)
    }))

  it('a range: each answer takes at least its low end, the draws spread over the range and repeat after a reset', () =>
    using(make, { latency: '50-150' }, async (api) => {
      expect(api.sandbox.options.latency).toEqual({ min: 50, max: 150 })
      for (let i = 0; i < 3; i++) expect((await timed(api.request('/v1/me'))).ms).toBeGreaterThanOrEqual(49)
      await api.sandbox.reset()
      const draws = Array.from({ length: 50 }, () => api.sandbox.nextFaults().latencyMs)
      for (const ms of draws) {
        expect(Number.isInteger(ms)).toBe(true)
        expect(ms).toBeGreaterThanOrEqual(50)
        expect(ms).toBeLessThanOrEqual(150)
      }
      expect(new Set(draws).size).toBeGreaterThan(10)
      expect(Math.min(...draws)).toBeLessThan(75)
      expect(Math.max(...draws)).toBeGreaterThan(125)
      await api.sandbox.reset()
      expect(Array.from({ length: 50 }, () => api.sandbox.nextFaults().latencyMs)).toEqual(draws)
    }))

  it.each([['-5'], ['abc'], ['400-100'], ['60001'], [-1]])(
    'refuses latency %s with an error naming it',
    async (latency) => {
      await expect(make({ latency: latency as never })).rejects.toThrow(/latency/)
    },
  )
})

describe.each(named)('the error rate, %s', (_name, make) => {
  const statuses = async (api: Transport, count: number) => {
    const seen: number[] = []
    for (let i = 0; i < count; i++) seen.push((await api.request('/v1/me')).status)
    return seen
  }

  it('fails about that share of 400 requests, with 500 internal_error or 503 service_unavailable only', () =>
    using(make, { errorRate: 0.25 }, async (api) => {
      const answers: Answer[] = []
      for (let i = 0; i < 400; i++) answers.push(await api.request(i % 2 === 0 ? '/v1/me' : '/v1/calls?limit=1'))
      const counts = new Map<number, number>()
      for (const { status } of answers) counts.set(status, (counts.get(status) ?? 0) + 1)
      expect([...counts.keys()].sort()).toEqual([200, 500, 503])
      const failures = answers.length - counts.get(200)!
      expect(failures).toBeGreaterThan(400 * 0.15)
      expect(failures).toBeLessThan(400 * 0.35)
      for (const answer of answers) {
        if (answer.status === 500) {
          expect(answer.body.error).toMatchObject({ type: 'api_error', code: 'internal_error' })
        } else if (answer.status === 503) {
          expect(answer.body.error).toMatchObject({ type: 'api_error', code: 'service_unavailable' })
          expect(retryAfter(answer)).toBeGreaterThanOrEqual(1)
        }
      }
      // The journal shows them as they were answered.
      expect(api.sandbox.journal.entries(400).map(({ status }) => status)).toEqual(
        answers.map(({ status }) => status).reverse(),
      )
    }))

  it('gives the same statuses in the same order after a reset, and another seed other ones', async () => {
    const [first, again] = await using(make, { errorRate: 0.3 }, async (api) => {
      const first = await statuses(api, 60)
      await postJson(api, '/_sandbox/reset')
      return [first, await statuses(api, 60)]
    })
    expect(again).toEqual(first)
    expect(first.filter((status) => status !== 200).length).toBeGreaterThan(5)
    const otherSeed = await using(make, { errorRate: 0.3, seed: 2 }, (api) => statuses(api, 60))
    expect(otherSeed).not.toEqual(first)
    const sameSeedAnew = await using(make, { errorRate: 0.3 }, (api) => statuses(api, 60))
    expect(sameSeedAnew).toEqual(first)
  })

  it('spares the control plane, and draws nothing for it', async () => {
    const plain = await using(make, { errorRate: 0.5 }, (api) => statuses(api, 20))
    const mixed = await using(make, { errorRate: 0.5 }, async (api) => {
      const seen: number[] = []
      for (let i = 0; i < 20; i++) {
        expect((await api.request('/_sandbox/health', { key: null })).status).toBe(200)
        seen.push((await api.request('/v1/me')).status)
      }
      return seen
    })
    expect(mixed).toEqual(plain)
  })

  it('is 0 by default, and 1 fails every request', async () => {
    await using(make, {}, async (api) => expect(new Set(await statuses(api, 30))).toEqual(new Set([200])))
    await using(make, { errorRate: 1 }, async (api) => {
      const seen = await statuses(api, 30)
      expect(seen.every((status) => status === 500 || status === 503)).toBe(true)
    })
  })

  it.each([[-0.1], [1.5], [Number.NaN]])('refuses errorRate %s', async (errorRate) => {
    await expect(make({ errorRate })).rejects.toThrow(/errorRate/)
  })
})

describe('the error rate in every mode', () => {
  it('meets the same statuses in process and over HTTP for the same seed', async () => {
    const sequence = (api: Transport) =>
      Promise.all([0]).then(async () => {
        const seen: number[] = []
        for (let i = 0; i < 50; i++) seen.push((await api.request('/v1/me')).status)
        return seen
      })
    const local = await using(inProcess, { errorRate: 0.3, seed: 7 }, sequence)
    const remote = await using(overHttp, { errorRate: 0.3, seed: 7 }, sequence)
    expect(remote).toEqual(local)
  })
})

describe.each(named)('the rate limit, %s', (_name, make) => {
  let api: Transport
  beforeAll(async () => {
    api = await make({ rateLimit: '3/min' })
  })
  afterAll(() => api.close())
  beforeEach(() => api.sandbox.reset())

  const limits = (answer: Answer) => ({
    limit: answer.headers.get('x-ratelimit-limit'),
    remaining: answer.headers.get('x-ratelimit-remaining'),
  })

  it('counts down X-RateLimit-Remaining, then answers 429 rate_limited with Retry-After', async () => {
    const before = Math.floor(Date.now() / 1_000)
    const answers: Answer[] = []
    for (let i = 0; i < 5; i++) answers.push(await api.request('/v1/calls?limit=1'))
    expect(answers.map(({ status }) => status)).toEqual([200, 200, 200, 429, 429])
    expect(answers.map(limits)).toEqual([
      { limit: '3', remaining: '2' },
      { limit: '3', remaining: '1' },
      { limit: '3', remaining: '0' },
      { limit: '3', remaining: '0' },
      { limit: '3', remaining: '0' },
    ])
    // One window: the same reset instant, an epoch second within the minute ahead.
    const resets = new Set(answers.map((answer) => answer.headers.get('x-ratelimit-reset')))
    expect(resets.size).toBe(1)
    const reset = Number([...resets][0])
    expect(Number.isInteger(reset)).toBe(true)
    expect(reset).toBeGreaterThan(before)
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1_000) + 60)
    const limited = answers[3]!
    expect(limited.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' })
    const wait = retryAfter(limited)
    expect(wait).toBeGreaterThanOrEqual(1)
    expect(wait).toBeLessThanOrEqual(60)
    expect(answers.slice(0, 3).every((answer) => answer.headers.get('retry-after') === null)).toBe(true)
  })

  it('puts the headers on every API answer: errors, other endpoints, a forced error', async () => {
    const answers = [
      await api.request('/v1/calls?limit=500'),
      await api.request('/v1/leads', { key: 'sk_sandbox_calls' }),
      await api.request('/v1/calls', { key: 'sk_sandbox_calls', headers: { Prefer: 'code=500' } }),
      await api.request('/v1/nowhere', { key: 'sk_sandbox_org2' }),
      await api.request('/v1/me', { key: null }),
      await api.request('/v1/me', { key: 'sk_nobody_has_this' }),
    ]
    expect(answers.map(({ status }) => status)).toEqual([400, 403, 500, 404, 401, 401])
    for (const answer of answers) {
      expect(answer.headers.get('x-ratelimit-limit')).toBe('3')
      expect(answer.headers.get('x-ratelimit-remaining')).toMatch(/^[0-2]$/)
      expect(answer.headers.get('x-ratelimit-reset')).toMatch(/^\d{10}$/)
    }
    // The control plane is not limited, and carries none.
    const control = await api.request('/_sandbox/health', { key: null })
    expect(control.headers.get('x-ratelimit-limit')).toBeNull()
  })

  it('keeps a budget per key', async () => {
    for (let i = 0; i < 4; i++) await api.request('/v1/me')
    expect((await api.request('/v1/me')).status).toBe(429)
    const other = await api.request('/v1/me', { key: 'sk_sandbox_readonly' })
    expect(other.status).toBe(200)
    expect(limits(other)).toEqual({ limit: '3', remaining: '2' })
    expect(limits(await api.request('/v1/me', { key: 'sk_sandbox_org2' }))).toEqual({ limit: '3', remaining: '2' })
    // Requests without a valid key share one budget of their own.
    expect(limits(await api.request('/v1/me', { key: null }))).toEqual({ limit: '3', remaining: '2' })
    expect(limits(await api.request('/v1/me', { key: 'sk_nobody_has_this' }))).toEqual({ limit: '3', remaining: '1' })
  })

  it('stops a key over its budget before anything it asked for', async () => {
    for (let i = 0; i < 3; i++) await api.request('/v1/me')
    expect((await api.request('/v1/me', { headers: { Prefer: 'code=500' } })).status).toBe(429)
    expect((await api.request('/v1/me', { headers: { Prefer: 'delay=abc' } })).status).toBe(429)
    expect((await api.request('/v1/leads', { key: 'sk_sandbox_calls' })).status).toBe(403)
    // Routing still comes first.
    expect((await api.request('/v1/nowhere')).status).toBe(404)
  })

  it('is back to full after a reset, by the control plane or in process', async () => {
    for (let i = 0; i < 4; i++) await api.request('/v1/me')
    expect((await api.request('/v1/me')).status).toBe(429)
    expect((await postJson(api, '/_sandbox/reset')).status).toBe(200)
    const after = await api.request('/v1/me')
    expect(after.status).toBe(200)
    expect(limits(after)).toEqual({ limit: '3', remaining: '2' })
    for (let i = 0; i < 3; i++) await api.request('/v1/me')
    await api.sandbox.reset()
    expect(limits(await api.request('/v1/me'))).toEqual({ limit: '3', remaining: '2' })
  })

  it('shows its 429s in the journal and the usage report', async () => {
    for (let i = 0; i < 5; i++) await api.request('/v1/calls')
    expect(api.sandbox.journal.entries().map(({ status }) => status)).toEqual([429, 429, 200, 200, 200])
    const [usage] = dataOf(await api.request('/_sandbox/usage', { key: null }))
    expect(usage.endpoints).toEqual([
      { method: 'GET', path: '/v1/calls', requests: 5, statuses: { 200: 3, 429: 2 }, parameters: [] },
    ])
  })
})

describe.each(named)('without a rate limit, %s', (_name, make) => {
  it('sends no X-RateLimit headers and never answers 429', () =>
    using(make, {}, async (api) => {
      for (let i = 0; i < 70; i++) {
        const answer = await api.request('/v1/me')
        expect(answer.status).toBe(200)
        expect(answer.headers.get('x-ratelimit-limit')).toBeNull()
        expect(answer.headers.get('x-ratelimit-remaining')).toBeNull()
      }
    }))

  it.each(['0/min', '60', 'lots', '5/day'])('refuses rateLimit %s', async (rateLimit) => {
    await expect(make({ rateLimit })).rejects.toThrow(/rate limit/)
  })
})

describe.each(named)('live mode, %s', (_name, make) => {
  const INTERVAL = 10 * MINUTE

  /** The call as the API shows it to its organization's key. */
  const callOf = async (api: Transport, id: string) => {
    const organizationId = api.sandbox.db.get('calls', id)!.organization_id
    return dataOf(await api.request(`/v1/calls/${id}`, { key: KEY_OF[organizationId]! }))
  }

  it('liveTick() adds a call on the line, which ends when the clock reaches its end', () =>
    using(make, {}, async (api) => {
      const { call } = await api.sandbox.liveTick()
      // Without `live`, the clock stands where it was.
      expect(api.sandbox.clock.iso()).toBe(NOW)
      const shown = await callOf(api, call.id)
      expect(['in-progress', 'forwarding']).toContain(shown.status)
      expect(shown.ended_at).toBeNull()
      expect(shown.transfer_status).toBe(shown.status === 'forwarding' ? 'initiated' : null)
      expect(Date.parse(shown.started_at)).toBeLessThanOrEqual(Date.parse(NOW))
      await postJson(api, '/_sandbox/clock', { advance_seconds: 15 * 60 })
      const ended = await callOf(api, call.id)
      expect(ended.status).toBe('completed')
      expect(ended.transfer_status).toEqual(
        shown.status === 'forwarding' ? expect.stringMatching(/^(completed|failed)$/) : null,
      )
      expect(ended.duration_seconds).toBe((Date.parse(ended.ended_at) - Date.parse(ended.started_at)) / 1_000)
      expect(ended.messages.slice(0, shown.messages.length)).toEqual(shown.messages)
    }))

  it('with a fixed clock, each tick first moves the clock on by the interval; the earlier calls end', () =>
    using(make, { live: '10m' }, async (api) => {
      const health = dataOf(await api.request('/_sandbox/health', { key: null }))
      expect(health.live).toEqual({ interval_ms: INTERVAL })
      expect(health.clock).toEqual({ now: NOW, mode: 'fixed' })
      const calls = []
      for (let tick = 1; tick <= 4; tick++) {
        const { call } = await api.sandbox.liveTick()
        expect(api.sandbox.clock.now()).toBe(Date.parse(NOW) + tick * INTERVAL)
        expect(call.ended_at).toBeNull()
        calls.push(call)
      }
      expect(dataOf(await api.request('/_sandbox/clock', { key: null })).now).toBe(
        new Date(Date.parse(NOW) + 4 * INTERVAL).toISOString(),
      )
      // Each call ended within the interval after it: all but the newest are over.
      for (const call of calls.slice(0, -1)) expect((await callOf(api, call.id)).status).toBe('completed')
      expect(['in-progress', 'forwarding']).toContain((await callOf(api, calls.at(-1)!.id)).status)
      // A reset puts the clock back to the seed instant.
      await postJson(api, '/_sandbox/reset')
      expect(api.sandbox.clock.iso()).toBe(NOW)
    }))

  it('is the same for the same seed: the same callers, statuses and organizations, also after a reset', async () => {
    const ticks = async (api: Transport) => {
      const seen = []
      for (let i = 0; i < 6; i++) {
        const { call } = await api.sandbox.liveTick()
        seen.push([call.id, call.status, call.organization_id, call.caller_phone, call.started_at])
      }
      return seen
    }
    const [first, afterReset] = await using(make, { live: '10m' }, async (api) => {
      const first = await ticks(api)
      await api.sandbox.reset()
      return [first, await ticks(api)]
    })
    expect(afterReset).toEqual(first)
    expect(await using(make, { live: '10m' }, ticks)).toEqual(first)
    expect(await using(make, { live: '10m', seed: 2 }, ticks)).not.toEqual(first)
  })

  it.each([['50ms'], ['2h'], [0], ['soon']])('refuses live %s', async (live) => {
    await expect(make({ live })).rejects.toThrow(/live/)
  })
})

describe('live mode on its own timer', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('ticks every interval until stop()', async () => {
    // Only the interval is faked: the sandbox's timer, not the clock or I/O.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    const sandbox = createSandbox({ now: NOW, live: 250 })
    await sandbox.ready
    const before = sandbox.db.count('calls')
    const settled = async (count: number) => {
      for (let i = 0; i < 1_000 && sandbox.db.count('calls') < count; i++)
        await new Promise((resolve) => setImmediate(resolve))
      return sandbox.db.count('calls')
    }
    vi.advanceTimersByTime(3 * 250)
    expect(await settled(before + 3)).toBe(before + 3)
    expect(sandbox.clock.now()).toBe(Date.parse(NOW) + 3 * 250)
    sandbox.stop()
    vi.advanceTimersByTime(10 * 250)
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve))
    expect(sandbox.db.count('calls')).toBe(before + 3)
  })
})
