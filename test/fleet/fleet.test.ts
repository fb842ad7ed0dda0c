/**
 * Servers given the same Redis store are one sandbox (`--store redis://`),
 * on one Redis node as on a Redis Cluster: any server answers any session
 * with every acknowledged write, writes racing on one session lose and fork
 * nothing, and what a world shares besides its records (the journal, usage,
 * live mode's lead, session names) is the same from every server.
 */
import { describe, expect, it, vi } from 'vitest'
import { startServer } from '../../src/server/startServer.js'
import { NOW } from '../support/transports.js'
import { AUTH, allContacts, control, createContact, get, server, storeOf, TOPOLOGIES } from './fleet.js'

describe.each(TOPOLOGIES)('servers over $name', (topology) => {
  const store = storeOf(topology)
  const serve = (options = {}) => server(store.url, options)

  it('answers any session from any server: a write answered by one is in the very next answer of the other', async () => {
    const [a, b] = [await serve(), await serve()]
    for (const root of ['', '/sessions/ci-1']) {
      const { body: created } = await createContact(`${a.url}${root}`, '+14155550101')
      const read = await get(b.url, `${root}/v1/contacts/${created.data.id}`)
      expect(read.status, root || 'the bare root').toBe(200)
      expect(read.body.data).toEqual(created.data)
    }
    // The session made on one server by its first write is served by the other, and stays its own world.
    expect((await get(b.url, '/v1/contacts?limit=1')).body.data[0].phone).toBe('+14155550101')
    expect((await allContacts(b.url, '/sessions/ci-1')).filter(({ phone }) => phone === '+14155550101')).toHaveLength(1)
  })

  it('keeps sessions spread over every primary, each write read back from both servers', async () => {
    const sessions = Array.from({ length: 8 }, (_, i) => `spread-${i}`)
    expect(new Set(await Promise.all(sessions.map(store.nodeOf))).size).toBe(store.primaries)
    const [a, b] = [await serve(), await serve()]
    const written = await Promise.all(
      sessions.flatMap((session, i) =>
        [0, 1, 2].map(async (n) => {
          const writer = (i + n) % 2 === 0 ? a : b
          const answer = await createContact(`${writer.url}/sessions/${session}`, `+1415557${i}${n}00`)
          expect(answer.status).toBe(201)
          return { session, contact: answer.body.data }
        }),
      ),
    )
    for (const { session, contact } of written) {
      for (const reader of [a, b]) {
        const read = await get(reader.url, `/sessions/${session}/v1/contacts/${contact.id}`)
        expect(read.body.data, `${session} from ${reader.url}`).toEqual(contact)
      }
    }
    // Each session holds its own three writes, and only them.
    expect(
      (await allContacts(b.url, '/sessions/spread-3')).filter(({ phone }) => phone.startsWith('+1415557')),
    ).toEqual(
      expect.arrayContaining(written.filter(({ session }) => session === 'spread-3').map(({ contact }) => contact)),
    )
  })

  it('loses and forks nothing when two servers write to one session at once: unique ids, one order of writes', async () => {
    const [a, b] = [await serve(), await serve()]
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        createContact(i % 2 === 0 ? a.url : b.url, `+1415556${String(i).padStart(4, '0')}`),
      ),
    )
    expect(answers.map(({ status }) => status)).toEqual(Array(40).fill(201))
    const ids = answers.map(({ body }) => body.data.id)
    expect(new Set(ids).size).toBe(40)
    const [fromA, fromB] = [await allContacts(a.url), await allContacts(b.url)]
    expect(fromA).toEqual(fromB)
    expect(fromA.map(({ id }) => id)).toEqual(expect.arrayContaining(ids))
    // One order: as one server would have made them, write 1 to 40, on both.
    expect(a.sandbox.writeCount).toBe(40)
    expect(b.sandbox.writeCount).toBe(40)
    // The same phone from both at once: one 201, one 409 naming it.
    const [first, second] = await Promise.all([
      createContact(a.url, '+14155550999'),
      createContact(b.url, '+14155550999'),
    ])
    expect([first.status, second.status].sort()).toEqual([201, 409])
  })

  it('holds a reset, a clock move and a scenario swap on every server', async () => {
    const [a, b] = [await serve(), await serve()]
    await createContact(a.url, '+14155550102')
    expect((await control(a.url, '/_sandbox/clock', { advance_seconds: 3_600 })).status).toBe(200)
    expect((await get(b.url, '/_sandbox/clock')).body.data.now).toBe('2026-11-20T13:00:00.000Z')
    expect((await control(b.url, '/_sandbox/reset', { scenario: 'empty' })).status).toBe(200)
    const health = await get(a.url, '/_sandbox/health')
    expect(health.body.data).toMatchObject({ scenario: 'empty', clock: { now: NOW }, records: { calls: 0 } })
    expect(health.body.data.store).toEqual({ kind: 'redis', state: 'ok', error: null })
    expect(await allContacts(a.url)).toEqual([])
  })

  it('ends a session on every server: one that held its world then serves the fresh session the others do', async () => {
    const [a, b, c] = [await serve(), await serve(), await serve()]
    const created = await control(a.url, '/_sandbox/sessions', { name: 'ended', seed: 7, now: '2026-12-01T09:00:00Z' })
    expect(created.status).toBe(201)
    expect((await get(b.url, '/sessions/ended/_sandbox/health')).body.data).toMatchObject({ seed: 7 })
    expect((await fetch(`${a.url}/_sandbox/sessions/ended`, { method: 'DELETE', headers: AUTH })).status).toBe(200)
    // A write to the name on the server that held the ended world, then what each server shows of it.
    expect((await createContact(`${b.url}/sessions/ended`, '+14155550199')).status).toBe(201)
    const shown = await Promise.all(
      [a, b, c].map(async ({ url }) => {
        const { seed, clock, records } = (await get(url, '/sessions/ended/_sandbox/health')).body.data
        return { seed, clock, records }
      }),
    )
    expect(shown[0]).toMatchObject({ seed: 1, clock: { now: NOW } })
    expect(shown[1]).toEqual(shown[0])
    expect(shown[2]).toEqual(shown[0])
  })

  it('serves, from a server started later, the sessions and writes of the servers before', async () => {
    const a = await serve()
    expect((await control(a.url, '/_sandbox/sessions', { name: 'seven', seed: 7 })).status).toBe(201)
    const { body: made } = await createContact(`${a.url}/sessions/seven`, '+14155550103')
    const later = await serve()
    expect((await get(later.url, `/sessions/seven/v1/contacts/${made.data.id}`)).body.data).toEqual(made.data)
    expect((await get(later.url, '/sessions/seven/_sandbox/health')).body.data.seed).toBe(7)
    // A name another server holds is taken on this one too.
    expect((await control(later.url, '/_sandbox/sessions', { name: 'seven' })).status).toBe(409)
    // Ended: its name is free for a server that did not hold it.
    expect((await fetch(`${later.url}/_sandbox/sessions/seven`, { method: 'DELETE' })).status).toBe(200)
    expect((await control((await serve()).url, '/_sandbox/sessions', { name: 'seven' })).status).toBe(201)
  })

  it('refuses to join a store that holds another world', async () => {
    await serve()
    const error = await startServer({ port: 0, quiet: true, now: NOW, seed: 2, store: store.url }).catch((e) => e)
    expect(error.message).toMatch(/holds another world/)
  })

  it('shows the same request journal and usage report from every server, and a reset empties both on all', async () => {
    const [a, b] = [await serve(), await serve()]
    await get(a.url, '/v1/calls?limit=2')
    await get(b.url, '/v1/contacts?limit=1')
    await createContact(a.url, '+14155550106')
    // The journal is written as the answer goes: the last one lands a moment later.
    const paths = async (url: string) =>
      (await get(url, '/_sandbox/requests')).body.data.map(({ path }: { path: string }) => path)
    await vi.waitFor(async () => expect(await paths(b.url)).toEqual(['/v1/contacts', '/v1/contacts', '/v1/calls']))
    const [journalA, journalB] = [await get(a.url, '/_sandbox/requests'), await get(b.url, '/_sandbox/requests')]
    expect(journalB.body.data).toEqual(journalA.body.data)
    // Counted from every server, with a limit or a filter.
    expect((await get(b.url, '/_sandbox/requests?limit=1')).body).toMatchObject({
      count: 3,
      data: [journalA.body.data[0]],
    })
    expect((await get(a.url, '/_sandbox/requests?method=GET&limit=1')).body.count).toBe(2)
    const [usageA, usageB] = [await get(a.url, '/_sandbox/usage'), await get(b.url, '/_sandbox/usage')]
    expect(usageA.body.data).toEqual(usageB.body.data)
    expect(usageA.body.data[0]).toMatchObject({ key: 'sk_sandbox_all', requests: 3 })
    await control(b.url, '/_sandbox/reset', {})
    expect((await get(a.url, '/_sandbox/requests')).body.data).toEqual([])
    expect((await get(a.url, '/_sandbox/usage')).body.data).toEqual([])
  })

  it("keeps the first KiB of a successful answer's body in the shared journal, and whole what was sent", async () => {
    const [a, b] = [await serve(), await serve()]
    const page = await fetch(`${a.url}/v1/calls?limit=20`, { headers: AUTH })
    const pageText = await page.text()
    expect(pageText.length).toBeGreaterThan(2_048)
    const sent = JSON.stringify({ phone: 'nope', notes: 'n'.repeat(3_000) })
    const headers = { ...AUTH, 'Content-Type': 'application/json' }
    const refused = await fetch(`${a.url}/v1/contacts`, { method: 'POST', headers, body: sent })
    expect(refused.status).toBe(422)
    const refusal = await refused.text()
    // The journal is written as the answer goes: the last one lands a moment later.
    const journal = await vi.waitFor(async () => {
      const entries = (await get(b.url, '/_sandbox/requests')).body.data
      expect(entries).toHaveLength(2)
      return entries
    })
    const [refusedEntry, pageEntry] = journal
    expect(pageEntry.response).toMatchObject({ body: pageText.slice(0, 1_024), body_truncated: true })
    expect(refusedEntry.request).toMatchObject({ body: sent, body_truncated: false })
    expect(refusedEntry.response).toMatchObject({ body: refusal, body_truncated: false })
  })

  it('keeps a credential sent in the query by its last 4 in the shared journal, as in memory', async () => {
    const [a, b] = [await serve(), await serve()]
    const token = 'sk_live_9TqwZp4RkVx7Lm2Nwxyz'
    expect((await get(a.url, `/v1/calls?access_token=${token}&status=completed`)).status).toBe(400)
    const query = { access_token: '…wxyz', status: 'completed' }
    await vi.waitFor(async () => expect((await get(b.url, '/_sandbox/requests')).body.data).toMatchObject([{ query }]))
    expect(JSON.stringify((await get(b.url, '/_sandbox/requests')).body)).not.toContain(token.slice(-5))
  })

  it('rings a live call once per arrival, however many servers hold the session', async () => {
    const interval = 100
    const started = performance.now()
    const [a, b] = [await serve({ live: interval }), await serve({ live: interval })]
    const clock = async () => Date.parse((await get(a.url, '/_sandbox/clock')).body.data.now)
    // Each arrival moves the stopped clock on by the interval: arrivals = clock moved / interval.
    await vi.waitFor(async () => expect(await clock()).toBeGreaterThan(Date.parse(NOW) + 5 * interval), {
      timeout: 20_000,
    })
    // Calls keep arriving: two reads between two arrivals see the same calls.
    await vi.waitFor(async () => {
      const [callsA, callsB] = [await get(a.url, '/v1/calls?limit=100'), await get(b.url, '/v1/calls?limit=100')]
      expect(callsA.body.data).toEqual(callsB.body.data)
    })
    const arrivals = (await clock()) - Date.parse(NOW)
    const elapsed = performance.now() - started
    // One timer's worth at most (two servers each ringing would make twice as many).
    expect(arrivals / interval).toBeLessThanOrEqual(Math.ceil(elapsed / interval) + 3)
  })

  it('keeps no more worlds in memory than --max-sessions, and loses none of what was put away', async () => {
    const [a, b] = [await serve({ maxSessions: 1 }), await serve({ maxSessions: 1 })]
    const made: Record<string, string> = {}
    for (const name of ['s1', 's2', 's3', 's1', 's2', 's3']) {
      const { body: answer } = await createContact(
        `${a.url}/sessions/${name}`,
        `+1415555${name.slice(1)}${Object.keys(made).length}00`,
      )
      made[answer.data.id] = name
    }
    const inMemory = (await get(a.url, '/_sandbox/sessions')).body.data.filter(
      ({ in_memory }: { in_memory: boolean }) => in_memory,
    )
    expect(inMemory.length).toBeLessThanOrEqual(2) // the default session and one more
    for (const [id, name] of Object.entries(made)) {
      expect((await get(b.url, `/sessions/${name}/v1/contacts/${id}`)).status, `${name} ${id}`).toBe(200)
      expect((await get(a.url, `/sessions/${name}/v1/contacts/${id}`)).status, `${name} ${id}`).toBe(200)
    }
  })
})
