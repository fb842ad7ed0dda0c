import { describe, expect, it, vi } from 'vitest'
import { Database } from '../data/Database.js'
import { StorageUnavailableError } from './domainErrors.js'
import { defaultOrganizations } from '../seed/fixtures.js'
import { createFaker } from '../seed/random.js'
import { seedWorld } from '../seed/seedWorld.js'
import { LogMovedOn } from './StoreLog.js'
import { type Kept, WriteQueue } from './WriteQueue.js'

const SEED = 7
const NOW = Date.parse('2026-11-20T12:00:00.000Z')
const WORLD = seedWorld({ seed: SEED, now: NOW, organizations: [{ ...defaultOrganizations[0]!, calls: 6 }] })
const CONTACT = WORLD.contacts[0]!

/** A contact of the seeded organization that is not in the world yet. */
function newContact(n: number) {
  return { ...CONTACT, id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, phone: `+1415555${1000 + n}` }
}

/** A promise and the hand that settles it, for a write that must wait on the test. */
function deferred<T = void>() {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((settle) => {
    resolve = settle
  })
  return { promise, resolve }
}

async function queueOverWorld(ready?: Promise<void>) {
  const db = new Database()
  const loaded = db.load(structuredClone(WORLD))
  const notify = vi.fn()
  const queue = new WriteQueue(SEED, db, ready ? Promise.all([loaded, ready]).then(() => undefined) : loaded, notify)
  await loaded
  return { queue, notify }
}

describe('WriteQueue', () => {
  it('runs no write before the world is ready', async () => {
    const ready = deferred()
    const { queue } = await queueOverWorld(ready.promise)
    const ran = vi.fn()
    const written = queue.write(async () => ran())
    // A turn of the event loop: time enough for a write that did not wait to have run.
    await new Promise((resolve) => setImmediate(resolve))
    expect(ran).not.toHaveBeenCalled()
    ready.resolve()
    await written
    expect(ran).toHaveBeenCalledOnce()
  })

  it('runs writes one at a time, in the order they were queued, however long each takes', async () => {
    const { queue } = await queueOverWorld()
    const events: string[] = []
    const firstMayEnd = deferred()
    const first = queue.write(async () => {
      events.push('first starts')
      expect(queue.running).toBe(true)
      await firstMayEnd.promise
      events.push('first ends')
    })
    const second = queue.write(async () => {
      events.push('second starts')
    })
    await vi.waitFor(() => expect(events).toEqual(['first starts']))
    firstMayEnd.resolve()
    await Promise.all([first, second])
    expect(events).toEqual(['first starts', 'first ends', 'second starts'])
    expect(queue.running).toBe(false)
    expect(queue.count).toBe(2)
  })

  it('resolves idle() once every write queued so far has run', async () => {
    const { queue } = await queueOverWorld()
    const done: number[] = []
    for (const n of [1, 2, 3]) void queue.write(async () => done.push(n))
    await queue.idle()
    expect(done).toEqual([1, 2, 3])
  })

  it('gives write n the random stream "write n" of the seed, whatever earlier writes drew', async () => {
    const draws = async (drawnByFirst: number) => {
      const { queue } = await queueOverWorld()
      await queue.write(async ({ faker }) => {
        for (let i = 0; i < drawnByFirst; i++) faker.string.uuid()
      })
      return queue.write(async ({ faker }) => [faker.string.uuid(), faker.person.fullName()])
    }
    const expected = createFaker(SEED, 'write 2')
    const fromStream = [expected.string.uuid(), expected.person.fullName()]
    expect(await draws(0)).toEqual(fromStream)
    expect(await draws(25)).toEqual(fromStream)
  })

  it('tells the listeners of a write that changed something, and not of one whose changed() says no', async () => {
    const { queue, notify } = await queueOverWorld()
    await queue.write(async ({ db }) => db.insert('contacts', newContact(1)))
    expect(notify).toHaveBeenCalledOnce()
    await queue.write(async () => 'nothing', { changed: (value) => value !== 'nothing' })
    expect(notify).toHaveBeenCalledOnce()
  })

  it('takes no number for a write that is not counted, and the count setCount gives for one that sets it', async () => {
    const { queue } = await queueOverWorld()
    await queue.write(async () => undefined, { counted: false })
    expect(queue.count).toBe(0)
    await queue.write(async ({ setCount }) => setCount(40))
    expect(queue.count).toBe(40)
    const next = await queue.write(async ({ faker }) => faker.string.uuid())
    expect(next).toBe(createFaker(SEED, 'write 41').string.uuid())
  })

  it('hands later writes the database a write put in place with replace()', async () => {
    const { queue } = await queueOverWorld()
    const empty = new Database()
    await queue.write(async ({ replace }) => replace(empty))
    expect(queue.records).toBe(empty)
    expect(await queue.write(async ({ db }) => db)).toBe(empty)
  })

  describe('a write that throws', () => {
    it('rejects with its error, leaves every record it wrote as it was, takes no number and tells no listener', async () => {
      const { queue, notify } = await queueOverWorld()
      const before = queue.records.get('contacts', CONTACT.id)
      const failure = new Error('the write changed its mind')
      const failed = queue.write(async ({ db }) => {
        await db.insert('contacts', newContact(1))
        await db.update('contacts', CONTACT.id, { name: 'Changed' })
        throw failure
      })
      await expect(failed).rejects.toBe(failure)
      expect(queue.records.get('contacts', newContact(1).id)).toBeUndefined()
      expect(queue.records.get('contacts', CONTACT.id)).toEqual(before)
      expect(queue.records.count('contacts')).toBe(WORLD.contacts.length)
      expect(queue.count).toBe(0)
      expect(notify).not.toHaveBeenCalled()
    })

    it('leaves the next write its number and its stream, and the queue running', async () => {
      const { queue } = await queueOverWorld()
      await expect(queue.write(async () => Promise.reject(new Error('no')))).rejects.toThrow('no')
      const drawn = await queue.write(async ({ faker }) => faker.string.uuid())
      expect(drawn).toBe(createFaker(SEED, 'write 1').string.uuid())
      expect(queue.count).toBe(1)
    })

    it('drops the replace() and setCount() of a write that then throws', async () => {
      const { queue } = await queueOverWorld()
      const db = queue.records
      const failed = queue.write(async ({ replace, setCount }) => {
        replace(new Database())
        setCount(99)
        throw new Error('no')
      })
      await expect(failed).rejects.toThrow('no')
      expect(queue.records).toBe(db)
      expect(queue.count).toBe(0)
    })
  })

  describe('kept in a store', () => {
    it('hands the store what a write inserted and changed, with its number, before the write counts', async () => {
      const { queue } = await queueOverWorld()
      const kept: Kept[] = []
      queue.keepIn(async (entry) => {
        expect(queue.count, 'the count while the store takes it').toBe(0)
        kept.push(entry)
      })
      await queue.write(async ({ db }) => {
        await db.insert('contacts', newContact(1))
        await db.update('contacts', CONTACT.id, { name: 'Changed' })
      })
      expect(kept).toEqual([
        {
          write: 1,
          changes: {
            inserted: [{ kind: 'contacts', record: expect.objectContaining({ id: newContact(1).id }) }],
            changed: [{ kind: 'contacts', record: expect.objectContaining({ id: CONTACT.id, name: 'Changed' }) }],
          },
        },
      ])
      expect(queue.count).toBe(1)
    })

    it('hands it nothing for a write that wrote nothing, or one kept as nothing', async () => {
      const { queue } = await queueOverWorld()
      const keep = vi.fn(async () => undefined)
      queue.keepIn(keep)
      await queue.write(async () => undefined)
      await queue.write(async ({ db }) => db.insert('contacts', newContact(1)), { kept: 'nothing' })
      expect(keep).not.toHaveBeenCalled()
      expect(queue.records.get('contacts', newContact(1).id)?.phone).toBe(newContact(1).phone)
    })

    it('hands it an entry of its own before the write runs', async () => {
      const { queue } = await queueOverWorld()
      const events: string[] = []
      queue.keepIn(async (entry) => {
        events.push(`kept ${JSON.stringify(entry)}`)
      })
      await queue.write(async () => events.push('ran'), { kept: () => ({ clock: true }) })
      expect(events).toEqual(['kept {"clock":true}', 'ran'])
    })

    it('undoes a write the store refuses: rejects with its error, no record, no number', async () => {
      const { queue, notify } = await queueOverWorld()
      const refusal = new StorageUnavailableError('The data file', 'the disk is full')
      queue.keepIn(async () => Promise.reject(refusal))
      await expect(queue.write(async ({ db }) => db.insert('contacts', newContact(1)))).rejects.toBe(refusal)
      expect(queue.records.get('contacts', newContact(1).id)).toBeUndefined()
      expect(queue.count).toBe(0)
      expect(notify).not.toHaveBeenCalled()
    })

    it('runs a write again after catching up when another server wrote first, against the world as it now is', async () => {
      const { queue } = await queueOverWorld()
      let refusals = 2
      const catchUp = vi.fn(async () => undefined)
      queue.keepIn(async () => {
        if (refusals-- > 0) throw new LogMovedOn()
      }, catchUp)
      const write = vi.fn(async ({ db }) => db.insert('contacts', newContact(1)))
      const contact = await queue.write(write)
      expect(write).toHaveBeenCalledTimes(3)
      expect(catchUp).toHaveBeenCalledTimes(2)
      expect(queue.records.get('contacts', contact.id)?.phone).toBe(newContact(1).phone)
      expect(queue.count).toBe(1)
    })

    it('gives up with 503 storage_unavailable after losing the race 50 times in a row', async () => {
      const { queue } = await queueOverWorld()
      const catchUp = vi.fn(async () => undefined)
      queue.keepIn(async () => Promise.reject(new LogMovedOn()), catchUp)
      const failed = queue.write(async ({ db }) => db.insert('contacts', newContact(1)))
      await expect(failed).rejects.toBeInstanceOf(StorageUnavailableError)
      await expect(failed).rejects.toThrow(/lost the race to other servers 50 times/)
      expect(catchUp).toHaveBeenCalledTimes(49)
      expect(queue.records.get('contacts', newContact(1).id)).toBeUndefined()
    })

    it('lets a lost race through as it is when there is no way to catch up', async () => {
      const { queue } = await queueOverWorld()
      queue.keepIn(async () => Promise.reject(new LogMovedOn()))
      await expect(queue.write(async ({ db }) => db.insert('contacts', newContact(1)))).rejects.toBeInstanceOf(
        LogMovedOn,
      )
    })
  })
})
