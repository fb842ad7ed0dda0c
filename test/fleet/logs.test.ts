/**
 * A session's log in Redis stays bounded, on one node as on a cluster: it is
 * compacted into a snapshot while servers write to it, losing and forking
 * nothing, and a server loads it from the snapshot; an idle session expires
 * (`sessionTtl`, `--session-ttl`), and answers as a new one.
 */
import { describe, expect, it, vi } from 'vitest'
import { COMPACTION_SLACK_BYTES } from '../../src/sessions/Store.js'
import { allContacts, control, createContact, get, server, storeOf, TOPOLOGIES } from './fleet.js'

/** Enough writes of a contact for two compactions of their session's log. */
const WRITES = 600

describe.each(TOPOLOGIES)('session logs over $name', (topology) => {
  const store = storeOf(topology)
  const head = async (session: string, field: string) => {
    const key = `call-sandbox:{${session}}:head`
    return Number((await store.send(key, 'HGET', key, field)) ?? 0)
  }
  /** Which of a session's keys Redis holds now. */
  const held = async (session: string, keys: string[]) => {
    const found = await Promise.all(
      keys.map(async (what) => {
        const key = `call-sandbox:{${session}}:${what}`
        return (await store.send(key, 'EXISTS', key)) === 1 ? what : undefined
      }),
    )
    return found.filter((what) => what !== undefined)
  }

  it('compacts a log two servers write to into a snapshot: nothing lost or forked, the log bounded', async () => {
    const [a, b, idle] = [await server(store.url), await server(store.url), await server(store.url)]
    const root = '/sessions/long'
    // Read once at the start: its place in the log is compacted away under it.
    expect((await get(idle.url, `${root}/v1/contacts?limit=1`)).status).toBe(200)
    const acknowledged: string[] = []
    const unbounded: string[] = []
    const writers = [a, b, a, b].map(async (writer, w) => {
      for (let i = 0; i < WRITES / 4; i++) {
        const answer = await createContact(`${writer.url}${root}`, `+1418${w}${String(i).padStart(6, '0')}`)
        expect(answer.status).toBe(201)
        acknowledged.push(answer.body.data.id)
        if (i % 10 > 0) continue
        // Past its snapshot by the slack, a log is compacted; writes racing the compaction may add a little more.
        const [bytes, snapshot] = [await head('long', 'bytes'), await head('long', 'snapshot_bytes')]
        if (bytes > snapshot + 2 * COMPACTION_SLACK_BYTES) unbounded.push(`${bytes} bytes after ${snapshot}`)
      }
    })
    await Promise.all(writers)
    expect(unbounded).toEqual([])
    // Compacted twice (past 64 KiB of log, then past the snapshot's size and 64 KiB more): most writes in the
    // snapshot, the list holding those since.
    await vi.waitFor(async () => expect(await head('long', 'base')).toBeGreaterThan(WRITES / 2))
    const listed = await store.send('call-sandbox:{long}:log', 'LLEN', 'call-sandbox:{long}:log')
    expect(listed).toBe(WRITES - (await head('long', 'base')))

    const fresh = await server(store.url)
    const contacts = await allContacts(a.url, root)
    expect(contacts.map(({ id }) => id)).toEqual(expect.arrayContaining(acknowledged))
    for (const reader of [b, idle, fresh]) expect(await allContacts(reader.url, root)).toEqual(contacts)
    for (const reader of [a, b, idle, fresh]) {
      const sessions = (await get(reader.url, '/_sandbox/sessions')).body.data
      expect(sessions.find(({ name }: { name: string }) => name === 'long').writes, reader.url).toBe(WRITES)
    }
  })

  it('expires a session left idle for its TTL, and keeps one in use and the default session', async () => {
    const ttl = { sessionTtl: 2_000 }
    const [a, b] = [await server(store.url, ttl), await server(store.url, ttl)]
    expect((await control(a.url, '/_sandbox/sessions', { name: 'brief', seed: 7 })).status).toBe(201)
    const brief = await createContact(`${b.url}/sessions/brief`, '+14155550301')
    const busy = await createContact(`${b.url}/sessions/busy`, '+14155550302')
    const kept = await createContact(a.url, '+14155550303')
    for (const written of [brief, busy, kept]) expect(written.status).toBe(201)
    expect(await held('brief', ['session', 'log'])).toEqual(['session', 'log'])
    // Gone once idle for its TTL; meanwhile `busy` is read again and again, and stays.
    await vi.waitFor(
      async () => {
        expect((await get(a.url, `/sessions/busy/v1/contacts/${busy.body.data.id}`)).status).toBe(200)
        expect(await held('brief', ['head', 'log', 'session', 'journal'])).toEqual([])
      },
      { timeout: 30_000, interval: 100 },
    )
    expect(await held('busy', ['log'])).toEqual(['log'])
    expect((await get(b.url, `/v1/contacts/${kept.body.data.id}`)).status).toBe(200)

    // An expired session answers as a new one: its writes gone on the servers that held it; its name free, and
    // made from the server's options, on one that did not.
    for (const holder of [a, b]) {
      expect((await get(holder.url, `/sessions/brief/v1/contacts/${brief.body.data.id}`)).status).toBe(404)
    }
    const later = await server(store.url, ttl)
    expect((await control(later.url, '/_sandbox/sessions', { name: 'brief' })).status).toBe(201)
    expect((await get(later.url, '/sessions/brief/_sandbox/health')).body.data.seed).toBe(1)
  })
})
