import { afterEach, describe, expect, it } from 'vitest'
import { Sandbox } from '../sandbox/Sandbox.js'
import type { OwnLog } from '../sandbox/StoreLog.js'
import { SessionExistsError, SessionLimitError } from './sessionErrors.js'
import type { StoreHealth } from '../schemas/index.js'
import type { FirstRead, StoredSession, Store, StoreEntry } from './Store.js'
import { DEFAULT_SESSION, type SessionLimits, Sessions } from './Sessions.js'

const NOW = '2026-11-20T12:00:00Z'
const PHONE = '+14155550123'
const running: Array<{ stop(): void }> = []
afterEach(() => {
  for (const each of running.splice(0)) each.stop()
})

async function sessionsOf(limits: SessionLimits = {}): Promise<Sessions> {
  const base = new Sandbox({ now: NOW })
  await base.ready
  const sessions = new Sessions(base, { now: NOW }, limits)
  running.push(base, sessions)
  return sessions
}

/** A store in memory that keeps, in order, every entry it is given. */
class StoreInMemory implements Store {
  readonly shared = false
  readonly seededFrom = undefined
  readonly errors = 0
  readonly entries: Array<{ session: string; entry: StoreEntry }> = []
  readonly forgotten: string[] = []
  async read(): Promise<FirstRead> {
    return { world: { snapshot: null, entries: [] }, sessions: [], logged: 0 }
  }
  async restored(): Promise<void> {}
  unfit(reason: string): Error {
    return new Error(reason)
  }
  async append(session: string, entry: StoreEntry): Promise<void> {
    this.entries.push({ session, entry })
  }
  log(session: string): OwnLog {
    return { shared: false, append: (entry) => this.append(session, entry), health: () => this.health() }
  }
  async session(): Promise<StoredSession | undefined> {
    return undefined
  }
  async forget(session: string): Promise<void> {
    this.forgotten.push(session)
  }
  health(): StoreHealth {
    return { kind: 'memory', state: 'ok', error: null }
  }
  async close(): Promise<void> {}
}

describe('Sessions', () => {
  it('makes a session at its first use, a world of its own seeded as the default one', async () => {
    const sessions = await sessionsOf()
    await sessions.use('alice', (world) => world.addContact({ phone: PHONE }))
    expect(sessions.has('alice')).toBe(true)
    expect(sessions.info('alice')).toMatchObject({ name: 'alice', writes: 1, requests: 1, in_memory: true })
    expect(sessions.base.writeCount).toBe(0)
    const bob = await sessions.open('bob')
    expect(bob.db.count('calls')).toBe(sessions.base.db.count('calls'))
    expect(sessions.list().map(({ name }) => name)).toEqual([DEFAULT_SESSION, 'alice', 'bob'])
  })

  it('puts away the least recently used world past maxSessions, and brings it back as it was', async () => {
    const sessions = await sessionsOf({ maxSessions: 1 })
    const contact = await sessions.use('alice', (world) => world.addContact({ phone: PHONE }))
    await sessions.open('bob')
    expect(sessions.info('alice')).toMatchObject({ in_memory: false, writes: 1 })
    const alice = await sessions.open('alice')
    expect(alice.db.get('contacts', contact.id)).toEqual(contact)
    // bob held nothing but its seed: put away in turn, it is forgotten.
    expect(sessions.has('bob')).toBe(false)
  })

  it('forgets a world put away that holds nothing but its seed: it would come back the same', async () => {
    const sessions = await sessionsOf({ maxSessions: 1 })
    await sessions.open('alice')
    await sessions.open('bob')
    expect(sessions.has('alice')).toBe(false)
    expect(sessions.size).toBe(1)
  })

  it('refuses a name taken, a name no session can have, and a new session past sessionLimit', async () => {
    const sessions = await sessionsOf({ sessionLimit: 1, sessionTtl: '1h' })
    await sessions.create('alice')
    await expect(sessions.create('alice')).rejects.toBeInstanceOf(SessionExistsError)
    await expect(sessions.create(DEFAULT_SESSION)).rejects.toBeInstanceOf(SessionExistsError)
    await expect(sessions.create('not a name')).rejects.toThrow(TypeError)
    const refused = await sessions.open('bob').catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(SessionLimitError)
    expect(refused).toMatchObject({ limit: 1 })
  })

  it('forgets a session unused for its TTL, never the default one', async () => {
    const sessions = await sessionsOf({ sessionTtl: '1h' })
    await sessions.use('alice', (world) => world.addContact({ phone: PHONE }))
    expect(sessions.expire(Date.now() + 30 * 60_000)).toEqual([])
    expect(sessions.expire(Date.now() + 2 * 3_600_000)).toEqual(['alice'])
    expect(sessions.has('alice')).toBe(false)
    expect(sessions.has(DEFAULT_SESSION)).toBe(true)
  })

  it('ends a session: what it was, then nothing', async () => {
    const sessions = await sessionsOf()
    await sessions.create('alice')
    expect(await sessions.delete('alice')).toMatchObject({ name: 'alice' })
    expect(sessions.has('alice')).toBe(false)
    expect(await sessions.delete('alice')).toBeUndefined()
  })

  it('tells its store of a session at its first write, each write after, its end, and its expiry', async () => {
    const sessions = await sessionsOf({ sessionTtl: '1h' })
    const store = new StoreInMemory()
    sessions.load([], store)
    await sessions.open('alice')
    expect(store.entries).toEqual([])
    await sessions.use('alice', (world) => world.addContact({ phone: PHONE }))
    expect(store.entries.map(({ session, entry }) => [session, Object.keys(entry)[0]])).toEqual([
      ['alice', 'created'],
      ['alice', 'write'],
    ])
    await sessions.create('bob')
    await sessions.delete('bob')
    expect(store.entries.slice(2).map(({ session, entry }) => [session, Object.keys(entry)[0]])).toEqual([
      ['bob', 'created'],
      ['bob', 'ended'],
    ])
    sessions.expire(Date.now() + 2 * 3_600_000)
    expect(store.forgotten).toEqual(['alice'])
  })
})
