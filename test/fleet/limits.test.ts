/**
 * The limits that hold in one server's memory hold across a fleet, in its store: the fault rules its named sessions
 * hold together (10,000), the bytes their journals hold (`--journal-bytes`, measured in Redis), and the sessions it
 * keeps (`--session-limit`), with servers adding at once.
 */
import { describe, expect, it } from 'vitest'
import { MAX_FAULT_RULES, MAX_FAULT_RULES_IN_SERVER } from '../../src/schemas/faultRule.js'
import { AUTH, control, server, storeOf, type StoreUnderTest, TOPOLOGIES } from './fleet.js'

/** Runs `tasks` `width` at a time: their results, in order. */
async function inTurns<T>(tasks: Array<() => Promise<T>>, width: number): Promise<T[]> {
  const results: T[] = []
  let next = 0
  const worker = async () => {
    while (next < tasks.length) {
      const at = next++
      results[at] = await tasks[at]!()
    }
  }
  await Promise.all(Array.from({ length: width }, worker))
  return results
}

const count = (statuses: readonly number[], status: number) => statuses.filter((seen) => seen === status).length

/** What Redis holds for a session's journal, by `MEMORY USAGE` (0 when it has none). */
async function journalBytes(store: StoreUnderTest, session: string): Promise<number> {
  const key = `call-sandbox:{${session}}:journal`
  return Number((await store.send(key, 'MEMORY', 'USAGE', key, 'SAMPLES', '0')) ?? 0)
}

/**
 * What `read` gives once `done` holds of it, or after 5 s: a server sends the fleet's count of journal bytes a few
 * milliseconds after it keeps a batch, and cuts other journals after that.
 */
async function settled<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5_000
  let value = await read()
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    value = await read()
  }
  return value
}

const sumOf = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0)

describe.each(TOPOLOGIES)('the limits of a fleet over $name', (topology) => {
  const store = storeOf(topology)

  it('keeps the journals of the fleet within --journal-bytes in Redis, the biggest cut first', async () => {
    const budget = 1024 * 1024
    const servers = [
      await server(store.url, { journalBytes: budget }),
      await server(store.url, { journalBytes: budget }),
    ]
    // 15 KB of headers on each request, each header under the kilobyte at which the journal cuts a value.
    const headers = {
      ...AUTH,
      ...Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`x-pad-${i}`, 'x'.repeat(1_000)])),
    }
    const flood = (session: string, requests: number) =>
      Array.from({ length: requests }, (_, i) => async () => {
        const response = await fetch(`${servers[i % 2]!.url}/sessions/${session}/v1/me`, { headers })
        await response.arrayBuffer()
        return response.status
      })
    // About 2.4 MB of journal for each of two sessions, and a quiet one.
    const statuses = await inTurns([...flood('flood-a', 150), ...flood('flood-b', 150), ...flood('quiet', 5)], 16)
    expect(count(statuses, 200)).toBe(305)
    // A read waits for the batches of its server: once each server answered one for each session, Redis has them all.
    for (const { url } of servers) {
      for (const session of ['flood-a', 'flood-b', 'quiet'])
        await fetch(`${url}/sessions/${session}/_sandbox/requests?limit=1`)
    }
    const held = () => Promise.all(['flood-a', 'flood-b', 'quiet'].map((session) => journalBytes(store, session)))
    expect(sumOf(await settled(held, (bytes) => sumOf(bytes) <= budget))).toBeLessThanOrEqual(budget)
    // The floods gave up their oldest entries; the quiet session, holding less, none.
    const entries = async (session: string) => {
      const page = await (await fetch(`${servers[0]!.url}/sessions/${session}/_sandbox/requests?limit=1000`)).json()
      return page.data.length as number
    }
    expect(await entries('quiet')).toBe(5)
    for (const session of ['flood-a', 'flood-b']) expect(await entries(session)).toBeGreaterThan(20)
    // An end gives its bytes back: the other flood may grow into them.
    expect((await fetch(`${servers[1]!.url}/_sandbox/sessions/flood-a`, { method: 'DELETE' })).status).toBe(200)
    await inTurns(flood('flood-b', 100), 16)
    for (const { url } of servers) await fetch(`${url}/sessions/flood-b/_sandbox/requests?limit=1`)
    const left = () => Promise.all(['flood-b', 'quiet'].map((session) => journalBytes(store, session)))
    const [floodB, quiet] = await settled(left, (bytes) => sumOf(bytes) <= budget)
    expect(floodB).toBeGreaterThan(budget * 0.75)
    expect(floodB! + quiet!).toBeLessThanOrEqual(budget)
  })

  it('keeps in Redis the first 100 parameters of a query of thousands, refused with 400', async () => {
    const [writer, reader] = [await server(store.url), await server(store.url)]
    const path = `/sessions/long-query/v1/calls?${Array(7_000).fill('limit=2').join('&')}`
    const answer = await fetch(`${writer.url}${path}`, { headers: AUTH })
    expect(answer.status).toBe(400)
    expect((await answer.json()).error.message).toBe('The query has more than 100 parameters; give at most 100.')
    const page = await (await fetch(`${reader.url}/sessions/long-query/_sandbox/requests?limit=1`)).json()
    expect(page.data[0]).toMatchObject({ query: { limit: Array(100).fill('2') }, query_truncated: true })
    // The 56 KB query was kept whole before: the entry held more than 56 KB in Redis.
    expect(await journalBytes(store, 'long-query')).toBeLessThan(8_192)
  })

  it('forgets, in the journals’ total, a session whose keys expired in Redis', async () => {
    const servers = [await server(store.url, { sessionTtl: 1_500 }), await server(store.url, { sessionTtl: 1_500 })]
    const read = (session: string) =>
      Promise.all(servers.map(({ url }) => fetch(`${url}/sessions/${session}/_sandbox/requests?limit=1`)))
    for (let i = 0; i < 6; i++) await fetch(`${servers[i % 2]!.url}/sessions/gone/v1/me`, { headers: AUTH })
    await read('gone')
    const total = async () =>
      Number(await store.send('call-sandbox:{~journals}:seq', 'HGET', 'call-sandbox:{~journals}:seq', '~total'))
    const held = async (session: string) => {
      const key = `call-sandbox:{${session}}:usage`
      return Number((await store.send(key, 'HGET', key, 'journal_bytes')) ?? 0)
    }
    const gone = await held('gone')
    expect(gone).toBeGreaterThan(0)
    expect(await settled(total, (bytes) => bytes === gone)).toBe(gone)
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    expect(await held('gone')).toBe(0)
    await fetch(`${servers[0]!.url}/sessions/kept/v1/me`, { headers: AUTH })
    await read('kept')
    const kept = await held('kept')
    expect(await settled(total, (bytes) => bytes === kept)).toBe(kept)
  })

  it('counts in the fleet’s total of rules none of those a reset removed, whichever server reset', async () => {
    const [a, b] = [await server(store.url), await server(store.url)]
    const total = async () =>
      Number((await store.send('call-sandbox:{~rules}:seq', 'HGET', 'call-sandbox:{~rules}:seq', '~total')) ?? 0)
    const rule = { path: '/v1/me', status: 500, times: null }
    for (let i = 0; i < 3; i++) expect((await control(a.url, '/sessions/wiped/_sandbox/faults', rule)).status).toBe(201)
    expect(await settled(total, (rules) => rules === 3)).toBe(3)
    expect((await control(b.url, '/sessions/wiped/_sandbox/reset', {})).status).toBe(200)
    expect((await (await fetch(`${a.url}/sessions/wiped/_sandbox/faults`)).json()).data).toEqual([])
    expect(await settled(total, (rules) => rules === 0)).toBe(0)
  })

  it('forgets in Redis the rules and journal of a session ended before it ever wrote', async () => {
    const [a, b] = [await server(store.url), await server(store.url)]
    const rule = { path: '/v1/me', status: 500, times: null }
    expect((await control(a.url, '/sessions/brief/_sandbox/faults', rule)).status).toBe(201)
    expect((await fetch(`${b.url}/sessions/brief/v1/me`, { headers: AUTH })).status).toBe(500)
    // Its journal entry in Redis (a read waits for the server's batches) before the end.
    expect((await (await fetch(`${b.url}/sessions/brief/_sandbox/requests`)).json()).data).toHaveLength(1)
    expect((await fetch(`${a.url}/_sandbox/sessions/brief`, { method: 'DELETE' })).status).toBe(200)
    // The name answers as a new session from every server: no rule of the one ended.
    expect((await fetch(`${b.url}/sessions/brief/v1/me`, { headers: AUTH })).status).toBe(200)
    const journal = await (await fetch(`${b.url}/sessions/brief/_sandbox/requests`)).json()
    expect(journal.data).toHaveLength(1)
  })

  it('holds the fleet to --session-limit sessions, two servers making them at once', async () => {
    const servers = [await server(store.url, { sessionLimit: 4 }), await server(store.url, { sessionLimit: 4 })]
    const make = (i: number) => async () => {
      const made = await control(servers[i % 2]!.url, '/_sandbox/sessions', { name: `s-${i}` })
      return made.status
    }
    const statuses = await inTurns(
      Array.from({ length: 10 }, (_, i) => make(i)),
      10,
    )
    expect(count(statuses, 201)).toBe(4)
    expect(count(statuses, 503)).toBe(6)
    // A session made by its first write counts too, and one ended gives its place back.
    const write = (url: string, session: string) =>
      fetch(`${url}/sessions/${session}/v1/contacts`, {
        method: 'POST',
        headers: { ...AUTH, 'Content-Type': 'application/json' },
        body: JSON.stringify({ phone: '+14155550123' }),
      })
    const refused = await write(servers[0]!.url, 'by-write')
    expect(refused.status).toBe(503)
    expect((await refused.json()).error.code).toBe('session_limit_reached')
    const made = statuses.indexOf(201)
    // Ended on the server that made it (another knows it only once it used it).
    const ended = await fetch(`${servers[made % 2]!.url}/_sandbox/sessions/s-${made}`, { method: 'DELETE' })
    expect(ended.status).toBe(200)
    expect((await write(servers[0]!.url, 'by-write')).status).toBe(201)
    expect((await control(servers[1]!.url, '/_sandbox/sessions', { name: 'one-more' })).status).toBe(503)
  })
})

// Ten thousand rules over HTTP take a minute or more: on one node only (the tally is on one slot either way).
describe('the fault rules of a fleet over one Redis node', () => {
  const store = storeOf(TOPOLOGIES[0]!)

  it(`holds the named sessions to ${MAX_FAULT_RULES_IN_SERVER.toLocaleString('en')} fault rules together, two servers adding at once`, async () => {
    const servers = [await server(store.url), await server(store.url)]
    const sessions = MAX_FAULT_RULES_IN_SERVER / MAX_FAULT_RULES + 1
    const add = (i: number) => async () => {
      const url = servers[i % 2]!.url
      const rule = { path: `/v1/calls/${i}`, status: 503, times: null }
      return (await control(url, `/sessions/rules-${i % sessions}/_sandbox/faults`, rule)).status
    }
    const statuses = await inTurns(
      Array.from({ length: sessions * MAX_FAULT_RULES }, (_, i) => add(i)),
      32,
    )
    expect(count(statuses, 201)).toBe(MAX_FAULT_RULES_IN_SERVER)
    expect(count(statuses, 409)).toBe(MAX_FAULT_RULES)

    // A rule removed, or a session ended, gives its place back, to any server.
    const [a, b] = servers as [(typeof servers)[0], (typeof servers)[0]]
    const refused = await control(b.url, '/sessions/rules-more/_sandbox/faults', { path: '/v1/me', status: 500 })
    expect(refused.body.error).toMatchObject({ code: 'fault_rule_limit_reached', details: { limit: 10_000 } })
    const listed = await (await fetch(`${a.url}/sessions/rules-0/_sandbox/faults`)).json()
    expect(
      (await fetch(`${a.url}/sessions/rules-0/_sandbox/faults/${listed.data[0].id}`, { method: 'DELETE' })).status,
    ).toBe(200)
    expect((await control(b.url, '/sessions/rules-more/_sandbox/faults', { path: '/v1/me', status: 500 })).status).toBe(
      201,
    )
    expect((await control(a.url, '/sessions/rules-more/_sandbox/faults', { path: '/v1/me', status: 500 })).status).toBe(
      409,
    )
    // Which adds were refused is the race's: rules-1 holds as many as it got.
    const freed = (await (await fetch(`${b.url}/sessions/rules-1/_sandbox/faults`)).json()).data.length as number
    expect(freed).toBeGreaterThan(0)
    expect((await fetch(`${a.url}/_sandbox/sessions/rules-1`, { method: 'DELETE' })).status).toBe(200)
    const again = await inTurns(
      Array.from({ length: MAX_FAULT_RULES + 1 }, (_, i) => async () => {
        const rule = { path: `/v1/calls/${i}`, status: 503 }
        return (await control(servers[i % 2]!.url, '/sessions/rules-again/_sandbox/faults', rule)).status
      }),
      8,
    )
    expect([count(again, 201), count(again, 409)]).toEqual([freed, MAX_FAULT_RULES + 1 - freed])
  }, 300_000)
})
