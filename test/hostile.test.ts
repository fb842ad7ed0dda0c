import { expect, it, vi } from 'vitest'
import { ErrorEnvelope } from '../src/index.js'
import { ECHO_LIMIT } from '../src/text/echoed.js'
import { postJson } from './support/control.js'
import { type Answer, describeEachTransport, type RequestOptions, type Transport } from './support/transports.js'

/*
 * Requests that cost the sandbox work in proportion to what they send: each
 * gets its error in the envelope, at a size of its own (not of what was
 * sent), and a probe sent beside it is answered. Every table runs in process
 * (MSW) and over HTTP; the server's own bounds (TRACE, the request timeout)
 * are in hostile-server.test.ts.
 */

const LONG = 60_000
/** An answer that repeats at most ECHO_LIMIT characters of what was sent, and says so. */
const SMALL_ANSWER = 4_096

/** The bad request and a probe sent beside it, on its own connection: both answered. */
async function withProbe(api: Transport, path: string, options?: RequestOptions): Promise<Answer> {
  const bad = api.request(path, options)
  const probe = api.request('/_sandbox/live', { key: null })
  const [answer, alive] = await Promise.all([bad, probe])
  expect(alive.status).toBe(200)
  return answer
}

function errorOf(answer: Answer) {
  return ErrorEnvelope.strict().parse(answer.body).error
}

const size = (answer: Answer) => JSON.stringify(answer.body).length

describeEachTransport(
  'hostile input ($transport): bounded work, its error in the envelope, the server still answering',
  (api) => {
    it.each([
      { where: 'under /v1/', path: `/v1/callz/${'a'.repeat(LONG)}` },
      { where: 'a path value', path: `/v1/calls/${'a'.repeat(LONG)}/x` },
      { where: 'all slashes', path: `/v1/${'/'.repeat(LONG)}` },
      { where: "under a session's root", path: `/sessions/ci-long/v1/callz/${'a'.repeat(LONG)}` },
      { where: 'under /_sandbox/', path: `/_sandbox/${'a'.repeat(LONG)}` },
    ])('answers a 60,000-character path $where with a small 404', async ({ path }) => {
      const answer = await withProbe(api, path)
      expect(answer.status).toBe(404)
      const error = errorOf(answer)
      expect(error.code).toBe('not_found')
      expect(error.message).toMatch(/… \(60,0\d\d characters\)/)
      expect(size(answer)).toBeLessThan(SMALL_ANSWER)
    })

    it('still suggests the endpoint for a near miss, a short path value filled in', async () => {
      const answer = await api.request('/v1/call/3f2b8c1e-9d4a-4e7b-8c2f-1a2b3c4d5e6f')
      expect(errorOf(answer).details).toEqual({ did_you_mean: '/v1/calls/3f2b8c1e-9d4a-4e7b-8c2f-1a2b3c4d5e6f' })
    })

    it('answers a 405 on a path with a 60,000-character value with a small error', async () => {
      const answer = await withProbe(api, `/v1/calls/${'a'.repeat(LONG)}`, { method: 'DELETE' })
      expect(answer.status).toBe(405)
      expect(size(answer)).toBeLessThan(SMALL_ANSWER)
    })

    it.each([
      { what: 'a 60,000-character parameter name', query: `${'a'.repeat(LONG)}=1` },
      { what: 'a near-miss name 60,000 characters long', query: `limit${'x'.repeat(LONG)}=1` },
    ])('answers $what with a small 400 unknown_parameter', async ({ query }) => {
      const answer = await withProbe(api, `/v1/calls?${query}`)
      expect(answer.status).toBe(400)
      const error = errorOf(answer)
      expect(error.code).toBe('unknown_parameter')
      expect(error.details).toBeUndefined()
      expect(error.param).toHaveLength(ECHO_LIMIT + ' (60,000 characters)'.length + 1)
      expect(size(answer)).toBeLessThan(SMALL_ANSWER)
    })

    it('lists the first 20 of 6,500 bad fields, and counts the rest in the message', async () => {
      const fields = Object.fromEntries(Array.from({ length: 6_500 }, (_, i) => [`f${i}`, 1]))
      const body = JSON.stringify({ phone: '+14155550123', ...fields })
      expect(body.length).toBeLessThan(64 * 1024)
      const answer = await withProbe(api, '/v1/contacts', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
      })
      expect(answer.status).toBe(422)
      const error = errorOf(answer)
      expect(error.details).toHaveLength(20)
      expect((error.details as Array<{ field: string }>).map(({ field }) => field)).toEqual(
        Array.from({ length: 20 }, (_, i) => `f${i}`),
      )
      expect(error.message).toMatch(/^The body has 6,500 bad fields: f0 is not a field .*; and 6,480 more\.$/)
      expect(size(answer)).toBeLessThan(SMALL_ANSWER)
    })

    it('echoes at most 200 characters of a bad field name, a Prefer value and a phone', async () => {
      const field = await api.request('/v1/contacts', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ phone: '+14155550123', ['x'.repeat(LONG)]: 1 }),
      })
      expect(field.status).toBe(422)
      expect(size(field)).toBeLessThan(SMALL_ANSWER)
      const prefer = await api.request('/v1/me', { headers: { Prefer: `code=${'9'.repeat(20_000)}` } })
      expect(prefer.status).toBe(400)
      expect(size(prefer)).toBeLessThan(SMALL_ANSWER)
      const phone = await api.request(`/v1/calls?phone=%20${'1'.repeat(20_000)}`)
      expect(phone.status).toBe(400)
      expect(errorOf(phone).message).toContain('%2B111')
      expect(size(phone)).toBeLessThan(SMALL_ANSWER)
    })

    it.each(['9999-12-31T23:59:59Z', '8999-01-01T00:00:01Z', '1970-06-01T00:00:00Z', '0000-01-01T00:00:00Z'])(
      'refuses a session seeded at %s, out of the seed range, and makes none',
      async (now) => {
        const answer = await withProbe(api, '/_sandbox/sessions', {
          method: 'POST',
          key: null,
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'far-off', now }),
        })
        expect(answer.status).toBe(422)
        expect(errorOf(answer).details).toEqual([
          { field: 'now', code: 'invalid_format', message: expect.stringContaining('from 1971-01-01 to 8999-01-01') },
        ])
        expect(api.sandbox.sessions.info('far-off')).toBeUndefined()
      },
    )

    it('serves a session seeded at the last instant of the range, and keeps its clock in range', async () => {
      expect((await postJson(api, '/_sandbox/sessions', { name: 'late', now: '8999-01-01T00:00:00Z' })).status).toBe(
        201,
      )
      expect((await api.request('/sessions/late/v1/calls?limit=1')).status).toBe(200)
      const past = await postJson(api, '/sessions/late/_sandbox/clock', { advance_seconds: 2 * 365 * 86_400 })
      expect(past.status).toBe(422)
      expect(errorOf(past).details).toEqual([
        {
          field: 'advance_seconds',
          code: 'invalid_format',
          message: expect.stringContaining('1970-01-01 to 9000-01-01'),
        },
      ])
      const on = await postJson(api, '/sessions/late/_sandbox/clock', { advance_seconds: 300 * 86_400 })
      expect(on.status).toBe(200)
      expect((await api.request('/sessions/late/v1/calls?since=9999-12-31T23:59:59Z')).body.data).toEqual([])
    })

    it.each([
      { since: '%2B275760-09-13T00:00:00Z', status: 400 },
      { since: '9999-12-31T23:59:59Z', status: 200 },
      { since: '0000-01-01', status: 200 },
    ])('answers since=$since with $status, on a list and on the journal', async ({ since, status }) => {
      expect((await api.request(`/v1/calls?since=${since}`)).status).toBe(status)
      expect((await api.request(`/_sandbox/requests?since=${since}`, { key: null })).status).toBe(status)
    })

    it.each(['.', '..'])('refuses a session named %s, which no URL reaches', async (name) => {
      const answer = await postJson(api, '/_sandbox/sessions', { name })
      expect(answer.status).toBe(422)
      expect(errorOf(answer).details).toEqual([{ field: 'name', code: 'invalid_format', message: expect.any(String) }])
      await expect(api.sandbox.sessions.create(name)).rejects.toThrow(TypeError)
      expect(api.sandbox.sessions.info(name)).toBeUndefined()
    })

    it('takes a session named ..., a name like any other', async () => {
      expect((await postJson(api, '/_sandbox/sessions', { name: '...' })).status).toBe(201)
      expect((await api.request('/sessions/.../v1/me')).status).toBe(200)
    })

    it('refuses a session made in process with a now out of range at once, not at its first request', async () => {
      await expect(api.sandbox.sessions.create('far-off', { now: '9999-12-31T23:59:59Z' })).rejects.toThrow(RangeError)
      expect(api.sandbox.sessions.info('far-off')).toBeUndefined()
    })

    it('answers other requests while a 20,000-call session is seeded, and the session as seeded', async () => {
      const created = await postJson(api, '/_sandbox/sessions', { name: 'seeding', calls: 20_000 })
      expect(created.status).toBe(201)
      const answered: string[] = []
      const first = api.request('/sessions/seeding/v1/calls?limit=1').then((answer) => {
        answered.push('the session')
        return answer
      })
      // Once its first request has reached the session (its seeding under way), the probes go.
      await vi.waitFor(() => expect(api.sandbox.sessions.info('seeding')?.requests).toBe(1), { interval: 5 })
      const probes = ['/_sandbox/live', '/v1/me', '/sessions/other/v1/me'].map((path) =>
        api.request(path).then((answer) => {
          answered.push(path)
          return answer
        }),
      )
      expect((await Promise.all(probes)).map(({ status }) => status)).toEqual([200, 200, 200])
      const seeded = await first
      expect(seeded.status).toBe(200)
      expect(answered.at(-1)).toBe('the session')
    })
  },
)
