import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { startServer, type RunningServer } from '../src/server/startServer.js'
import { dataOf, postJson } from './support/control.js'
import { inProcess, NOW, overHttp, transports, walk, type Transport } from './support/transports.js'

/*
 * Sessions: /sessions/{name}/ is an API root of its own over a world no
 * other session sees. Every table runs in process (MSW) and over HTTP.
 */

const named = transports.map((make) => [make.name === 'inProcess' ? 'in process' : 'over HTTP', make] as const)
const contactBody = (phone: string) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ phone }),
})
const ids = (records: Array<{ id: string }>) => records.map(({ id }) => id)

describe.each(named)('sessions, %s', (_name, make) => {
  let api: Transport
  beforeAll(async () => {
    api = await make()
  })
  afterAll(() => api.close())

  it.each([
    ['a space', '/sessions/two%20words/v1/me'],
    ['a slash, escaped', '/sessions/a%2Fb/v1/me'],
    ['no name', '/sessions//v1/me'],
    ['65 characters', `/sessions/${'x'.repeat(65)}/v1/me`],
    ['a non-ASCII letter', '/sessions/caf%C3%A9/v1/me'],
  ])('refuses a name with %s: 400 invalid_parameter naming session, and makes no session', async (_what, path) => {
    const answer = await api.request(path)
    expect(answer.status).toBe(400)
    expect(answer.body.error).toMatchObject({ code: 'invalid_parameter', param: 'session' })
    expect(api.sandbox.sessions.list().map(({ name }) => name)).toEqual([
      'default',
      ...api.sandbox.sessions
        .list()
        .slice(1)
        .map(({ name }) => name),
    ])
    expect(api.sandbox.sessions.list().some(({ name }) => path.includes(name) && name !== 'default')).toBe(false)
  })

  it('answers 404 for a path no plane has, without making the session', async () => {
    const answer = await api.request('/sessions/never-made/v2/calls')
    expect(answer.status).toBe(404)
    expect(api.sandbox.sessions.info('never-made')).toBeUndefined()
  })

  it('keeps each session to itself: a write, a reset and a clock move in one are invisible in the others', async () => {
    const created = await api.request('/sessions/alice/v1/contacts', contactBody('+14155550101'))
    expect(created.status).toBe(201)
    expect(created.headers.get('location')).toBe(`/sessions/alice/v1/contacts/${created.body.data.id}`)
    const phone = encodeURIComponent('+14155550101')
    expect((await api.request(`/sessions/alice/v1/contacts?phone=${phone}`)).body.data).toHaveLength(1)
    expect((await api.request(`/sessions/bob/v1/contacts?phone=${phone}`)).body.data).toHaveLength(0)
    expect((await api.request(`/v1/contacts?phone=${phone}`)).body.data).toHaveLength(0)

    // The same contact can be made in bob: its own world, the same id (the same seed and write number).
    const inBob = await api.request('/sessions/bob/v1/contacts', contactBody('+14155550101'))
    expect(inBob.body.data.id).toBe(created.body.data.id)

    await postJson(api, '/sessions/bob/_sandbox/clock', { advance_seconds: 3_600 })
    expect((await api.request('/sessions/bob/_sandbox/clock', { key: null })).body.data.now).toBe(
      '2026-11-20T13:00:00.000Z',
    )
    expect((await api.request('/sessions/alice/_sandbox/clock', { key: null })).body.data.now).toBe(NOW)

    await postJson(api, '/sessions/bob/_sandbox/reset')
    expect((await api.request(`/sessions/bob/v1/contacts?phone=${phone}`)).body.data).toHaveLength(0)
    expect((await api.request(`/sessions/alice/v1/contacts?phone=${phone}`)).body.data).toHaveLength(1)
    // Each session's journal holds its own requests only.
    const journal = dataOf(await api.request('/sessions/alice/_sandbox/requests', { key: null }))
    expect(journal.every(({ path }: { path: string }) => path.startsWith('/v1/'))).toBe(true)
    // The journal keeps the headers the client got: the Location under the session's root, as sent.
    const post = journal.find(({ method }: { method: string }) => method === 'POST')
    expect(post.response.headers.location).toBe(created.headers.get('location'))
    expect(post.response.headers['x-request-id']).toBe(created.headers.get('x-request-id'))
    // bob's was emptied by its reset: only the request after it.
    expect(
      dataOf(await api.request('/sessions/bob/_sandbox/requests', { key: null })).map(
        ({ method }: { method: string }) => method,
      ),
    ).toEqual(['GET'])
  })

  it('gives two fresh sessions the same records, ids included, and takes no cursor of one in the other', async () => {
    const first = await api.request('/sessions/fresh-1/v1/calls?limit=20')
    const second = await api.request('/sessions/fresh-2/v1/calls?limit=20')
    expect(second.body.data).toEqual(first.body.data)
    expect(first.body.data).toEqual((await api.request('/v1/calls?limit=20')).body.data)
    const elsewhere = await api.request(`/sessions/fresh-2/v1/calls?limit=20&cursor=${first.body.next_cursor}`)
    expect(elsewhere.status).toBe(400)
    expect(elsewhere.body.error.code).toBe('invalid_cursor')
    expect((await api.request(`/sessions/fresh-1/v1/calls?limit=20&cursor=${first.body.next_cursor}`)).status).toBe(200)
    expect(await walk(api, '/sessions/fresh-1/v1/leads')).toEqual(await walk(api, '/v1/leads'))
  })

  it("counts the bare root's requests under the default session", async () => {
    const before = api.sandbox.sessions.info('default')!.requests
    await api.request('/v1/me')
    await api.request('/sessions/default/v1/me')
    expect(api.sandbox.sessions.info('default')!.requests).toBe(before + 2)
  })

  it('serves /sessions/default/ as the bare root', async () => {
    const made = await api.request('/sessions/default/v1/contacts', contactBody('+14155550109'))
    expect(made.status).toBe(201)
    expect((await api.request(`/v1/contacts/${made.body.data.id}`)).status).toBe(200)
    await postJson(api, '/_sandbox/reset')
  })

  describe('/_sandbox/sessions', () => {
    it('creates a session with options of its own, lists it, refuses its name again, and ends it', async () => {
      const created = await postJson(api, '/_sandbox/sessions', {
        name: 'seven',
        seed: 7,
        calls: 40,
        now: '2026-03-01T08:00:00Z',
      })
      expect(created.status).toBe(201)
      expect(created.headers.get('location')).toBe('/sessions/seven')
      expect(created.body.data).toMatchObject({
        name: 'seven',
        url: '/sessions/seven',
        writes: 0,
        requests: 0,
        in_memory: false,
      })
      const health = dataOf(await api.request('/sessions/seven/_sandbox/health', { key: null }))
      expect(health).toMatchObject({ seed: 7, clock: { now: '2026-03-01T08:00:00.000Z', mode: 'fixed' } })
      expect((await walk(api, '/sessions/seven/v1/calls')).length).toBe(40)

      const again = await postJson(api, '/_sandbox/sessions', { name: 'seven' })
      expect(again.status).toBe(409)
      expect(again.body.error).toMatchObject({ code: 'session_exists', details: { session: 'seven' } })

      const listed = dataOf(await api.request('/_sandbox/sessions', { key: null }))
      expect(listed[0].name).toBe('default')
      expect(listed.find(({ name }: { name: string }) => name === 'seven')).toMatchObject({
        requests: 2,
        in_memory: true,
      })

      const ended = await api.request('/_sandbox/sessions/seven', { method: 'DELETE', key: null })
      expect(ended.status).toBe(200)
      expect(ended.body.data.name).toBe('seven')
      expect(api.sandbox.sessions.info('seven')).toBeUndefined()
      expect((await api.request('/_sandbox/sessions/seven', { method: 'DELETE', key: null })).status).toBe(404)
      // Its name now makes a fresh session from the server's options.
      expect(dataOf(await api.request('/sessions/seven/_sandbox/health', { key: null })).seed).toBe(1)
    })

    it('makes up a name when none is given', async () => {
      const created = await postJson(api, '/_sandbox/sessions', {})
      expect(created.status).toBe(201)
      expect(created.body.data.name).toMatch(/^s-[a-z0-9]{10}$/)
    })

    it.each([
      [{ name: 'bad name' }, 'name'],
      [{ seed: -1 }, 'seed'],
      [{ scenario: 'rainy' }, 'scenario'],
      [{ now: 'yesterday' }, 'now'],
      [{ calls: 200_000 }, 'calls'],
      [{ colour: 'blue' }, 'colour'],
    ])('refuses %o with 422 naming %s', async (body, field) => {
      const answer = await postJson(api, '/_sandbox/sessions', body)
      expect(answer.status).toBe(422)
      expect(answer.body.error.details.map(({ field }: { field: string }) => field)).toContain(field)
    })

    it('refuses to end the default session, and names a bad session in a DELETE', async () => {
      const answer = await api.request('/_sandbox/sessions/default', { method: 'DELETE', key: null })
      expect(answer.status).toBe(400)
      expect(answer.body.error.param).toBe('session')
      expect((await api.request('/_sandbox/sessions/a%20b', { method: 'DELETE', key: null })).body.error.param).toBe(
        'session',
      )
    })
  })
})

describe('sessions in memory', () => {
  it('puts the least recently used idle session away past the cap, and brings it back as it was, writes and ids going on', async () => {
    const capped = await inProcess({ maxSessions: 2 })
    const uncapped = await overHttp()
    try {
      for (const api of [capped, uncapped]) {
        for (const name of ['a', 'b', 'c'])
          await api.request(`/sessions/${name}/v1/contacts`, contactBody('+14155550120'))
        await postJson(api, '/sessions/a/_sandbox/clock', { advance_seconds: 60 })
      }
      // a came back for the clock move, so b went: at most two worlds in memory.
      const inMemory = capped.sandbox.sessions.list().filter(({ name, in_memory }) => name !== 'default' && in_memory)
      expect(inMemory.map(({ name }) => name)).toEqual(['c', 'a'])
      for (const api of [capped, uncapped]) await api.request('/sessions/b/v1/contacts', contactBody('+14155550121'))
      for (const name of ['a', 'b', 'c']) {
        expect(await walk(capped, `/sessions/${name}/v1/contacts`), name).toEqual(
          await walk(uncapped, `/sessions/${name}/v1/contacts`),
        )
        expect(dataOf(await capped.request(`/sessions/${name}/_sandbox/clock`, { key: null }))).toEqual(
          dataOf(await uncapped.request(`/sessions/${name}/_sandbox/clock`, { key: null })),
        )
      }
      expect(capped.sandbox.sessions.info('b')).toMatchObject({ writes: 2 })
    } finally {
      await capped.close()
      await uncapped.close()
    }
  })

  it('never puts away a session that is answering a request', async () => {
    const api = await inProcess({ maxSessions: 1 })
    try {
      await api.request('/sessions/slow/v1/contacts', contactBody('+14155550130'))
      const slow = api.request('/sessions/slow/v1/contacts?limit=100', { headers: { Prefer: 'delay=300' } })
      await vi.waitFor(() => expect(api.sandbox.sessions.info('slow')?.requests).toBe(2))
      for (const name of ['x', 'y', 'z']) await api.request(`/sessions/${name}/v1/me`)
      expect(api.sandbox.sessions.info('slow')?.in_memory).toBe(true)
      const answer = await slow
      expect(answer.status).toBe(200)
      expect(answer.body.data.some(({ phone }: { phone: string }) => phone === '+14155550130')).toBe(true)
      // Once it answered, it is the least recently used idle session over the cap: put away, and back as it was.
      expect(api.sandbox.sessions.list().filter(({ in_memory, name }) => in_memory && name !== 'default')).toHaveLength(
        1,
      )
      expect((await walk(api, '/sessions/slow/v1/contacts')).some(({ phone }) => phone === '+14155550130')).toBe(true)
    } finally {
      await api.close()
    }
  })

  it('keeps no more worlds than the cap for a flood of names: those put away keep their journals, not their worlds', async () => {
    const api = await inProcess({ maxSessions: 5 })
    try {
      for (let i = 0; i < 60; i++) expect((await api.request(`/sessions/flood-${i}/v1/me`)).status).toBe(200)
      const sessions = api.sandbox.sessions.list()
      expect(sessions.filter(({ in_memory }) => in_memory).length).toBeLessThanOrEqual(1 + 5)
      expect(sessions).toHaveLength(1 + 60)
      // One put away answers from its seed, as it did.
      expect((await api.request('/sessions/flood-0/v1/calls?limit=5')).body.data).toEqual(
        (await api.request('/v1/calls?limit=5')).body.data,
      )
    } finally {
      await api.close()
    }
  })

  it('answers many sessions at once, each seeing only its own records', async () => {
    const api = await inProcess({ maxSessions: 4 })
    try {
      const workers = Array.from({ length: 8 }, (_, i) => `worker-${i}`)
      await Promise.all(
        workers.map(async (name, i) => {
          for (let n = 0; n < 3; n++)
            expect(
              (
                await api.request(
                  `/sessions/${name}/v1/contacts`,
                  contactBody(`+1415555${String(i).padStart(2, '0')}${n}0`),
                )
              ).status,
            ).toBe(201)
        }),
      )
      const seeded = await walk(api, '/v1/contacts')
      for (const [i, name] of workers.entries()) {
        const own = (await walk(api, `/sessions/${name}/v1/contacts`)).filter(
          (contact) => !ids(seeded).includes(contact.id),
        )
        expect(own.map(({ phone }) => phone).sort(), name).toEqual(
          [0, 1, 2].map((n) => `+1415555${String(i).padStart(2, '0')}${n}0`),
        )
      }
    } finally {
      await api.close()
    }
  })
})

describe('sessions across a restart with --data', () => {
  const folders: string[] = []
  const servers: RunningServer[] = []
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()))
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
  })
  const start = async (data: string, options = {}) => {
    const server = await startServer({ data, now: NOW, port: 0, quiet: true, ...options })
    servers.push(server)
    return server
  }
  const post = (server: RunningServer, path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sk_sandbox_all', ...headers },
      body: JSON.stringify(body),
    })

  it('keeps every session, put away or in memory, with its writes, options and clock', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'call-sandbox-sessions-'))
    folders.push(folder)
    const file = join(folder, 'data.json')
    const first = await start(file, { maxSessions: 1 })
    const made = await (await post(first, '/sessions/kept/v1/contacts', { phone: '+14155550140' })).json()
    await post(first, '/_sandbox/sessions', { name: 'seven', seed: 7 })
    await post(first, '/sessions/seven/_sandbox/clock', { advance_seconds: 120 })
    await fetch(`${first.url}/sessions/idle/v1/me`, { headers: { Authorization: 'Bearer sk_sandbox_all' } })
    await first.close()
    servers.splice(0)

    const second = await start(file, { maxSessions: 1 })
    const contact = await (
      await fetch(`${second.url}/sessions/kept/v1/contacts/${made.data.id}`, {
        headers: { Authorization: 'Bearer sk_sandbox_all' },
      })
    ).json()
    expect(contact.data).toEqual(made.data)
    const health = await (await fetch(`${second.url}/sessions/seven/_sandbox/health`)).json()
    expect(health.data).toMatchObject({ seed: 7, clock: { now: '2026-11-20T12:02:00.000Z' } })
    const listed = (await (await fetch(`${second.url}/_sandbox/sessions`)).json()).data.map(
      ({ name }: { name: string }) => name,
    )
    expect(listed).toEqual(expect.arrayContaining(['default', 'kept', 'seven']))
    // A session that only read was nothing but its seed: not kept.
    expect(listed).not.toContain('idle')
    // Writes go on with the ids the uninterrupted session would make.
    const next = await (await post(second, '/sessions/kept/v1/contacts', { phone: '+14155550141' })).json()
    const uninterrupted = await start(join(folder, 'other.json'))
    await post(uninterrupted, '/sessions/kept/v1/contacts', { phone: '+14155550140' })
    expect(
      (await (await post(uninterrupted, '/sessions/kept/v1/contacts', { phone: '+14155550141' })).json()).data.id,
    ).toBe(next.data.id)
  })

  it("wants the admin token for the sessions and for a session's control plane", async () => {
    const server = await startServer({ now: NOW, port: 0, quiet: true, adminToken: 'admin-token-123' })
    servers.push(server)
    expect((await fetch(`${server.url}/_sandbox/sessions`)).status).toBe(401)
    expect((await fetch(`${server.url}/sessions/x/_sandbox/reset`, { method: 'POST' })).status).toBe(401)
    expect(
      (await fetch(`${server.url}/_sandbox/sessions`, { headers: { Authorization: 'Bearer admin-token-123' } })).status,
    ).toBe(200)
    expect(
      (await fetch(`${server.url}/sessions/x/v1/me`, { headers: { Authorization: 'Bearer sk_sandbox_all' } })).status,
    ).toBe(200)
  })
})
