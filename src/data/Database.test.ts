import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { defaultOrganizations } from '../seed/fixtures.js'
import { seedWorld } from '../seed/seedWorld.js'
import { SLICE_SIZE } from '../seed/slices.js'
import { countTurns } from '../../test/support/turns.js'
import { Database, type Filters, type PageQuery } from './Database.js'
import { compare, positionOf } from './KeysetIndex.js'
import type { Kind, StoredContact, StoredRecords } from '../schemas/stored.js'

const NOW = Date.parse('2026-11-20T12:00:00.000Z')
const [ORG_1, ORG_2] = [defaultOrganizations[0]!, defaultOrganizations[1]!]

/** A small world: 60 calls for the first organization, 25 for the second. */
const WORLD = seedWorld({
  seed: 1,
  now: NOW,
  organizations: [
    { ...ORG_1, calls: 60 },
    { ...ORG_2, calls: 25 },
  ],
})

async function loadedDatabase(): Promise<Database> {
  const db = new Database()
  await db.load(structuredClone(WORLD))
  return db
}

/** What a page must hold, by brute force: filter all records, sort, then cut. */
function bruteForce<K extends Kind>(
  db: Database,
  kind: K,
  organizationId: string,
  query: Omit<PageQuery<K>, 'limit' | 'after'>,
): StoredRecords[K][] {
  const equals = Object.entries(query.equals ?? {}) as Array<[string, string]>
  return db
    .all(kind)
    .filter((record) => record.organization_id === organizationId)
    .filter((record) => equals.every(([field, value]) => (record as Record<string, unknown>)[field] === value))
    .filter((record) => query.sinceMs === undefined || Date.parse(record.created_at) > query.sinceMs)
    .sort((a, b) => compare(positionOf(a), positionOf(b)))
}

/** Every page of a query, walking with `after` = the position of each page's last record. */
function walk<K extends Kind>(
  db: Database,
  kind: K,
  organizationId: string,
  query: PageQuery<K>,
): { records: StoredRecords[K][]; pages: number } {
  const records: StoredRecords[K][] = []
  let after = query.after
  for (let pages = 1; pages <= 10_000; pages++) {
    const page = db.page(kind, organizationId, { ...query, after })
    expect(page.records.length).toBeLessThanOrEqual(query.limit)
    records.push(...page.records)
    if (!page.hasMore) return { records, pages }
    expect(page.records.length, 'a page with more after it is full').toBe(query.limit)
    after = positionOf(page.records.at(-1)!)
  }
  throw new Error('the walk did not end')
}

const ids = (records: ReadonlyArray<{ id: string }>) => records.map(({ id }) => id)

/** A value of `field` that several records of the organization share, so that a filter on it is a real selection. */
function commonValue(kind: Kind, organizationId: string, field: string): string {
  const counts = new Map<string, number>()
  for (const record of WORLD[kind] as Array<Record<string, unknown>>) {
    if (record.organization_id !== organizationId) continue
    const value = String(record[field])
    counts.set(value, (counts.get(value) ?? 0) + 1)
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0]![0]
}

const repeatCaller = commonValue('calls', ORG_1.organization_id, 'caller_phone')

describe('Database', () => {
  it('is given a world with something in every list to page through', () => {
    expect(WORLD.calls.filter((call) => call.organization_id === ORG_1.organization_id)).toHaveLength(60)
    expect(WORLD.leads.length).toBeGreaterThan(5)
    expect(WORLD.appointments.length).toBeGreaterThan(3)
    expect(
      WORLD.calls.filter((call) => call.caller_phone === repeatCaller).length,
      'a caller who rang more than once',
    ).toBeGreaterThan(1)
  })

  it('loads a world in slices, the event loop running between them, to the same records', async () => {
    const world = seedWorld({ seed: 2, now: NOW, organizations: [{ ...ORG_1, calls: 2 * SLICE_SIZE }] })
    const db = new Database()
    const turns = countTurns()
    await db.load(structuredClone(world))
    expect(turns.stop()).toBeGreaterThanOrEqual(2)
    expect(db.count('calls')).toBe(world.calls.length)
    expect(db.page('calls', ORG_1.organization_id, { limit: 5 }).records.map(({ id }) => id)).toEqual(
      world.calls
        .slice()
        .sort((a, b) => compare(positionOf(a), positionOf(b)))
        .slice(0, 5)
        .map(({ id }) => id),
    )
  })

  it('keys each record in @msw/data by its own id, loaded, inserted or changed, and leaves the world it was given as it was', async () => {
    const world = structuredClone(WORLD)
    const db = new Database()
    await db.load(world)
    const contact = world.contacts[0]!
    const inserted = await db.insert('contacts', {
      ...contact,
      id: '0e4a9a4e-58c1-4c46-9a1d-1f6c3b0d7e21',
      phone: '+14155550100',
    })
    const changed = await db.update('calls', world.calls[0]!.id, { caller_name: 'Changed' })
    const changedTwice = await db.update('calls', world.calls[0]!.id, { caller_name: 'Changed again' })
    // @msw/data's key is a symbol it does not export; a record shows it among its own.
    const keyOf = (record: object) => {
      const symbol = Object.getOwnPropertySymbols(record).find((candidate) => candidate.description === 'kPrimaryKey')
      return symbol && (record as Record<symbol, unknown>)[symbol]
    }
    for (const kind of ['calls', 'contacts', 'leads', 'appointments'] as const) {
      for (const record of db.all(kind)) expect(keyOf(record), `${kind} ${record.id}`).toBe(record.id)
    }
    expect([inserted, changed, changedTwice].map(keyOf)).toEqual([inserted.id, changed.id, changed.id])
    expect(world.contacts.every((record) => Object.getOwnPropertySymbols(record).length === 0)).toBe(true)
  })

  describe('page', () => {
    let db: Database
    beforeAll(async () => {
      db = await loadedDatabase()
    })

    const since = NOW - 30 * 24 * 3_600_000
    const cases: Array<{ kind: Kind; organization: string; equals?: Record<string, string>; sinceMs?: number }> = [
      { kind: 'calls', organization: ORG_1.organization_id },
      { kind: 'calls', organization: ORG_2.organization_id },
      { kind: 'calls', organization: ORG_1.organization_id, equals: { status: 'completed' } },
      { kind: 'calls', organization: ORG_1.organization_id, equals: { status: 'failed' } },
      { kind: 'calls', organization: ORG_1.organization_id, equals: { status: 'in-progress' } },
      { kind: 'calls', organization: ORG_1.organization_id, equals: { caller_phone: repeatCaller } },
      {
        kind: 'calls',
        organization: ORG_1.organization_id,
        equals: { status: 'completed', caller_phone: repeatCaller },
      },
      { kind: 'calls', organization: ORG_1.organization_id, equals: { status: 'completed' }, sinceMs: since },
      { kind: 'calls', organization: ORG_1.organization_id, sinceMs: since },
      { kind: 'calls', organization: ORG_1.organization_id, equals: { status: 'no-such-status' } },
      // A phone of the first organization, asked of the second: none of its records.
      { kind: 'calls', organization: ORG_2.organization_id, equals: { caller_phone: repeatCaller } },
      { kind: 'contacts', organization: ORG_1.organization_id },
      { kind: 'contacts', organization: ORG_1.organization_id, equals: { phone: repeatCaller } },
      { kind: 'contacts', organization: ORG_1.organization_id, equals: { phone: '+10000000000' } },
      { kind: 'leads', organization: ORG_1.organization_id },
      {
        kind: 'leads',
        organization: ORG_1.organization_id,
        equals: { status: commonValue('leads', ORG_1.organization_id, 'status') },
      },
      {
        kind: 'leads',
        organization: ORG_1.organization_id,
        equals: { urgency: commonValue('leads', ORG_1.organization_id, 'urgency') },
      },
      {
        kind: 'leads',
        organization: ORG_1.organization_id,
        equals: {
          status: commonValue('leads', ORG_1.organization_id, 'status'),
          urgency: commonValue('leads', ORG_1.organization_id, 'urgency'),
        },
      },
      { kind: 'appointments', organization: ORG_1.organization_id },
      {
        kind: 'appointments',
        organization: ORG_1.organization_id,
        equals: { status: commonValue('appointments', ORG_1.organization_id, 'status') },
      },
      { kind: 'appointments', organization: ORG_2.organization_id, sinceMs: since },
      { kind: 'calls', organization: '00000000-0000-4000-8000-000000000000' },
    ]

    describe.each(cases)(
      '$kind of $organization, equals $equals, sinceMs $sinceMs',
      ({ kind, organization, equals, sinceMs }) => {
        it.each([1, 2, 7, 50, 100, 1_000])(
          'walks pages of %i to what a brute-force filter and sort returns',
          (limit) => {
            const expected = bruteForce(db, kind, organization, { equals: equals as Filters<Kind>, sinceMs })
            const { records, pages } = walk(db, kind, organization, { limit, equals: equals as Filters<Kind>, sinceMs })
            expect(ids(records)).toEqual(ids(expected))
            expect(records).toEqual(expected)
            expect(pages, 'the last page is the one with the last record').toBe(
              Math.max(1, Math.ceil(expected.length / limit)),
            )
          },
        )
      },
    )

    it('says hasMore exactly when records are left', () => {
      const all = bruteForce(db, 'calls', ORG_1.organization_id, {})
      expect(db.page('calls', ORG_1.organization_id, { limit: all.length }).hasMore).toBe(false)
      expect(db.page('calls', ORG_1.organization_id, { limit: all.length - 1 }).hasMore).toBe(true)
      expect(db.page('calls', ORG_1.organization_id, { limit: all.length + 1 }).hasMore).toBe(false)
    })

    it('ignores equals values that are undefined', () => {
      const page = db.page('calls', ORG_1.organization_id, {
        limit: 1_000,
        equals: { status: undefined, caller_phone: undefined },
      })
      expect(ids(page.records)).toEqual(ids(bruteForce(db, 'calls', ORG_1.organization_id, {})))
    })

    it('starts strictly after a position that is no record (a deleted one), and stops at sinceMs', () => {
      const all = bruteForce(db, 'calls', ORG_1.organization_id, {})
      const middle = all[20]!
      const between = { t: Date.parse(middle.created_at), id: `${middle.id}0` }
      expect(ids(db.page('calls', ORG_1.organization_id, { limit: 1_000, after: between }).records)).toEqual(
        ids(all.slice(20)),
      )
      const sinceMs = Date.parse(all[10]!.created_at)
      expect(ids(db.page('calls', ORG_1.organization_id, { limit: 1_000, sinceMs }).records)).toEqual(
        ids(all.filter((call) => Date.parse(call.created_at) > sinceMs)),
      )
    })

    it('counts the records of each organization, and of all', () => {
      for (const kind of ['calls', 'contacts', 'leads', 'appointments'] as const) {
        const mine = WORLD[kind].filter((record) => record.organization_id === ORG_1.organization_id).length
        expect(db.count(kind, ORG_1.organization_id), kind).toBe(mine)
        expect(db.count(kind), kind).toBe(WORLD[kind].length)
      }
      expect(db.count('calls', '00000000-0000-4000-8000-000000000000')).toBe(0)
    })
  })

  describe('insert', () => {
    let db: Database
    beforeEach(async () => {
      db = await loadedDatabase()
    })

    const template = () =>
      structuredClone(WORLD.contacts.find((contact) => contact.organization_id === ORG_1.organization_id)!)
    const newContact = (overrides: Partial<StoredContact> = {}): StoredContact => ({
      ...template(),
      id: '0e4a9a4e-58c1-4c46-9a1d-1f6c3b0d7e21',
      phone: '+14155550100',
      source: 'api',
      total_calls: 0,
      last_call_at: null,
      created_at: new Date(NOW - 5 * 24 * 3_600_000).toISOString(),
      updated_at: new Date(NOW - 5 * 24 * 3_600_000).toISOString(),
      ...overrides,
    })

    it('adds a record that get, contactByPhone, count and its pages then show, in list order', async () => {
      const before = db.count('contacts', ORG_1.organization_id)
      const contact = newContact()
      const stored = await db.insert('contacts', contact)
      expect(stored).toEqual(contact)
      expect(db.get('contacts', contact.id)).toEqual(contact)
      expect(db.contactByPhone(ORG_1.organization_id, contact.phone)?.id).toBe(contact.id)
      expect(db.contactByPhone(ORG_2.organization_id, contact.phone)).toBeUndefined()
      expect(db.count('contacts', ORG_1.organization_id)).toBe(before + 1)
      expect(db.changed).toBe(true)
      const listed = walk(db, 'contacts', ORG_1.organization_id, { limit: 3 }).records
      expect(ids(listed)).toContain(contact.id)
      expect(ids(listed)).toEqual(ids(bruteForce(db, 'contacts', ORG_1.organization_id, {})))
      expect(
        ids(db.page('contacts', ORG_1.organization_id, { limit: 10, equals: { phone: contact.phone } }).records),
      ).toEqual([contact.id])
    })

    it('adds a call with its messages, found by its status and its phone', async () => {
      const source = WORLD.calls.find(
        (call) => call.organization_id === ORG_1.organization_id && call.status === 'completed',
      )!
      const call = {
        ...structuredClone(source),
        id: '5b0f7f0e-6f7b-4c8e-9d0a-2b3c4d5e6f70',
        caller_phone: '+14155550111',
        created_at: new Date(NOW - 1_000).toISOString(),
      }
      await db.insert('calls', call)
      expect(db.page('calls', ORG_1.organization_id, { limit: 1 }).records[0]?.id).toBe(call.id)
      expect(
        ids(
          db.page('calls', ORG_1.organization_id, {
            limit: 100,
            equals: { status: 'completed', caller_phone: '+14155550111' },
          }).records,
        ),
      ).toEqual([call.id])
      expect(db.messages(call.id).map(({ content }) => content)).toEqual(
        db.messages(source.id).map(({ content }) => content),
      )
    })

    it.each([
      { kind: 'contacts', why: 'a phone that is not E.164', change: { phone: '4155550100' } },
      { kind: 'contacts', why: 'an email that is no address', change: { email: 'not an email' } },
      { kind: 'contacts', why: 'an upper-case id', change: { id: '0E4A9A4E-58C1-4C46-9A1D-1F6C3B0D7E21' } },
      { kind: 'contacts', why: 'a created_at that is no timestamp', change: { created_at: 'yesterday' } },
      { kind: 'contacts', why: 'a source of another kind', change: { source: 'import' } },
      { kind: 'contacts', why: 'a negative total_calls', change: { total_calls: -1 } },
      { kind: 'contacts', why: 'a missing organization_id', change: { organization_id: undefined } },
      { kind: 'leads', why: 'an unknown status', change: { status: 'bogus' } },
      { kind: 'leads', why: 'an urgency in upper case', change: { urgency: 'HIGH' } },
      { kind: 'calls', why: 'a fractional duration', change: { duration_seconds: 1.5 } },
      { kind: 'calls', why: 'a number for a phone', change: { caller_phone: 14155550100 } },
      { kind: 'appointments', why: 'an appointment_date that is no date', change: { appointment_date: '2026-02-30' } },
    ] as const)('throws on a $kind record with $why, and stores nothing', async ({ kind, change }) => {
      const source = structuredClone(WORLD[kind].find((record) => record.organization_id === ORG_1.organization_id)!)
      const record = {
        ...source,
        id: '0e4a9a4e-58c1-4c46-9a1d-1f6c3b0d7e21',
        created_at: new Date(NOW - 1_000).toISOString(),
        ...change,
      }
      const before = bruteForce(db, kind, ORG_1.organization_id, {})
      await expect(db.insert(kind, record as never)).rejects.toThrow()
      expect(db.get(kind, record.id)).toBeUndefined()
      expect(db.get(kind, record.id.toLowerCase())).toBeUndefined()
      expect(ids(walk(db, kind, ORG_1.organization_id, { limit: 50 }).records)).toEqual(ids(before))
      expect(db.count(kind, ORG_1.organization_id)).toBe(before.length)
      expect(db.changed).toBe(false)
    })

    it.each([
      [
        'an id another contact has',
        (contact: StoredContact) => newContact({ id: contact.id, phone: '+14155550199' }),
        /id/,
      ],
      [
        'a phone another contact of the organization has',
        (contact: StoredContact) => newContact({ phone: contact.phone }),
        /phone/,
      ],
    ])('throws on a contact with %s, and stores nothing', async (_why, make, message) => {
      const existing = WORLD.contacts.find((contact) => contact.organization_id === ORG_1.organization_id)!
      const before = ids(walk(db, 'contacts', ORG_1.organization_id, { limit: 100 }).records)
      await expect(db.insert('contacts', make(existing))).rejects.toThrow(message)
      expect(ids(walk(db, 'contacts', ORG_1.organization_id, { limit: 100 }).records)).toEqual(before)
      expect(db.get('contacts', existing.id)).toEqual(existing)
      expect(db.changed).toBe(false)
    })

    it.each([
      ['no message_times', undefined],
      ['one time too few', 'short'],
      ['a time that is no number', 'text'],
    ] as const)('throws on a call with %s, and stores nothing', async (_why, damage) => {
      const source = structuredClone(
        WORLD.calls.find((call) => call.organization_id === ORG_1.organization_id && call.status === 'completed')!,
      )
      const times =
        damage === undefined
          ? undefined
          : damage === 'short'
            ? source.message_times.slice(1)
            : ['soon', ...source.message_times.slice(1)]
      const call = { ...source, id: '5b0f7f0e-6f7b-4c8e-9d0a-2b3c4d5e6f71', message_times: times }
      await expect(db.insert('calls', call as never)).rejects.toThrow(/message_times/)
      expect(db.get('calls', call.id)).toBeUndefined()
      expect(db.messages(call.id)).toEqual([])
    })
  })

  describe('update', () => {
    let db: Database
    beforeEach(async () => {
      db = await loadedDatabase()
    })

    const lead = () =>
      WORLD.leads.find((lead) => lead.organization_id === ORG_1.organization_id && lead.status === 'new')!

    it('changes the fields given and keeps the others', async () => {
      const { id } = lead()
      const updated = await db.update('leads', id, {
        status: 'qualified',
        interest: 'Whitening',
        updated_at: new Date(NOW).toISOString(),
      })
      expect(updated).toEqual({
        ...lead(),
        status: 'qualified',
        interest: 'Whitening',
        updated_at: new Date(NOW).toISOString(),
      })
      expect(db.get('leads', id)).toEqual(updated)
      expect(db.changed).toBe(true)
    })

    it('keeps id, organization_id and created_at, whatever the changes say', async () => {
      const original = lead()
      const updated = await db.update('leads', original.id, {
        id: '00000000-0000-4000-8000-000000000000',
        organization_id: ORG_2.organization_id,
        created_at: new Date(NOW).toISOString(),
        status: 'contacted',
      })
      expect(updated.id).toBe(original.id)
      expect(updated.organization_id).toBe(original.organization_id)
      expect(updated.created_at).toBe(original.created_at)
      expect(updated.status).toBe('contacted')
      expect(db.get('leads', '00000000-0000-4000-8000-000000000000')).toBeUndefined()
      expect(ids(bruteForce(db, 'leads', ORG_2.organization_id, {}))).not.toContain(original.id)
      expect(ids(db.page('leads', ORG_1.organization_id, { limit: 1_000 }).records)).toContain(original.id)
      expect(db.page('leads', ORG_2.organization_id, { limit: 1_000 }).records.map(({ id }) => id)).not.toContain(
        original.id,
      )
    })

    it("moves a lead between filter indexes: new → lost is found by status 'lost' and not by 'new'", async () => {
      const { id } = lead()
      const byStatus = (status: string) =>
        ids(walk(db, 'leads', ORG_1.organization_id, { limit: 2, equals: { status } }).records)
      expect(byStatus('new')).toContain(id)
      expect(byStatus('lost')).not.toContain(id)
      await db.update('leads', id, { status: 'lost' })
      expect(byStatus('new')).not.toContain(id)
      expect(byStatus('lost')).toContain(id)
      for (const status of ['new', 'lost', 'contacted']) {
        expect(byStatus(status), status).toEqual(
          ids(bruteForce(db, 'leads', ORG_1.organization_id, { equals: { status } })),
        )
      }
    })

    it('moves a contact between phones: contactByPhone finds it by the new phone only', async () => {
      const contact = WORLD.contacts.find((contact) => contact.organization_id === ORG_1.organization_id)!
      await db.update('contacts', contact.id, { phone: '+14155550177' })
      expect(db.contactByPhone(ORG_1.organization_id, '+14155550177')?.id).toBe(contact.id)
      expect(db.contactByPhone(ORG_1.organization_id, contact.phone), `the old phone ${contact.phone}`).toBeUndefined()
      expect(
        ids(db.page('contacts', ORG_1.organization_id, { limit: 10, equals: { phone: contact.phone } }).records),
      ).toEqual([])
      expect(
        ids(db.page('contacts', ORG_1.organization_id, { limit: 10, equals: { phone: '+14155550177' } }).records),
      ).toEqual([contact.id])
    })

    it('validates the result: a bad field throws and changes nothing', async () => {
      const original = lead()
      await expect(db.update('leads', original.id, { status: 'bogus' as never })).rejects.toThrow()
      await expect(db.update('leads', original.id, { caller_email: 'nope' })).rejects.toThrow()
      expect(db.get('leads', original.id)).toEqual(original)
      expect(db.changed).toBe(false)
    })

    it('throws on an id that names no record', async () => {
      await expect(db.update('leads', '00000000-0000-4000-8000-000000000000', { status: 'lost' })).rejects.toThrow(
        /00000000-0000-4000-8000-000000000000/,
      )
    })
  })

  describe('rollback', () => {
    /** Everything a reader can see of the database, for the lists, records and lookups a test touches. */
    function snapshot(db: Database, extraIds: string[], extraPhones: string[]) {
      const state: Record<string, unknown> = { changed: db.changed }
      for (const organization of [ORG_1.organization_id, ORG_2.organization_id]) {
        for (const { kind, filters } of [
          {
            kind: 'calls',
            filters: [
              {},
              ...['completed', 'failed', 'blocked', 'in-progress', 'forwarding'].map((status) => ({ status })),
              { caller_phone: repeatCaller },
              { caller_phone: '+14155550100' },
            ],
          },
          { kind: 'contacts', filters: [{}, { phone: repeatCaller }, ...extraPhones.map((phone) => ({ phone }))] },
          {
            kind: 'leads',
            filters: [
              {},
              ...['new', 'contacted', 'qualified', 'converted', 'lost'].map((status) => ({ status })),
              { urgency: 'high' },
              { urgency: 'low' },
            ],
          },
          {
            kind: 'appointments',
            filters: [
              {},
              ...['booked', 'confirmed', 'cancelled', 'completed', 'no_show'].map((status) => ({ status })),
            ],
          },
        ] as const) {
          for (const equals of filters) {
            for (const limit of [1, 1_000]) {
              state[`${kind} ${organization} ${JSON.stringify(equals)} ${limit}`] = db.page(kind, organization, {
                limit,
                equals,
              })
            }
          }
          state[`count ${kind} ${organization}`] = db.count(kind, organization)
        }
        for (const phone of [...WORLD.contacts.map((contact) => contact.phone), ...extraPhones]) {
          state[`phone ${organization} ${phone}`] = db.contactByPhone(organization, phone) ?? null
        }
      }
      for (const kind of ['calls', 'contacts', 'leads', 'appointments'] as const) {
        state[`count ${kind}`] = db.count(kind)
        for (const { id } of WORLD[kind]) state[`${kind} ${id}`] = db.get(kind, id) ?? null
        for (const id of extraIds) state[`${kind} ${id}`] = db.get(kind, id) ?? null
      }
      for (const { id } of WORLD.calls) state[`messages ${id}`] = db.messages(id)
      for (const id of extraIds) state[`messages ${id}`] = db.messages(id)
      return structuredClone(state)
    }

    const NEW_IDS = [
      '0e4a9a4e-58c1-4c46-9a1d-1f6c3b0d7e21',
      '5b0f7f0e-6f7b-4c8e-9d0a-2b3c4d5e6f70',
      '7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
    ]
    const NEW_PHONES = ['+14155550100', '+14155550111', '+14155550177', '+14155550188']

    async function writeAMix(db: Database): Promise<void> {
      const org1 = (record: { organization_id: string }) => record.organization_id === ORG_1.organization_id
      const contact = WORLD.contacts.find(org1)!
      const call = WORLD.calls.find((call) => org1(call) && call.status === 'completed')!
      const lead = WORLD.leads.find((lead) => org1(lead) && lead.status === 'new')!
      const appointment = WORLD.appointments.find(org1)!
      // Inserts: a contact, a call of an existing caller, a lead.
      await db.insert('contacts', {
        ...structuredClone(contact),
        id: NEW_IDS[0]!,
        phone: '+14155550100',
        source: 'api',
        created_at: new Date(NOW).toISOString(),
      })
      await db.insert('calls', {
        ...structuredClone(call),
        id: NEW_IDS[1]!,
        caller_phone: repeatCaller,
        created_at: new Date(NOW - 60_000).toISOString(),
      })
      await db.insert('leads', {
        ...structuredClone(lead),
        id: NEW_IDS[2]!,
        status: 'new',
        created_at: call.created_at,
      })
      // Updates of loaded records, one of them twice, one moving between indexes.
      await db.update('leads', lead.id, { status: 'lost' })
      await db.update('leads', lead.id, { status: 'contacted', urgency: 'high' })
      await db.update('calls', call.id, { status: 'failed', summary: 'changed' })
      await db.update('appointments', appointment.id, { status: 'cancelled' })
      await db.update('contacts', contact.id, { name: 'Renamed', total_calls: contact.total_calls + 1 })
      // Updates of a record inserted after the load, twice, one moving its phone.
      await db.update('contacts', NEW_IDS[0]!, { name: 'Inserted then renamed' })
      await db.update('contacts', NEW_IDS[0]!, { phone: '+14155550111' })
      await db.update('leads', NEW_IDS[2]!, { status: 'qualified' })
    }

    it('undoes inserts and updates: every page, get, contactByPhone, messages and count as right after load', async () => {
      const db = await loadedDatabase()
      const loaded = snapshot(db, NEW_IDS, NEW_PHONES)
      await writeAMix(db)
      expect(db.changed).toBe(true)
      const written = snapshot(db, NEW_IDS, NEW_PHONES)
      expect(written).not.toEqual(loaded)
      await db.rollback()
      expect(db.changed).toBe(false)
      expect(snapshot(db, NEW_IDS, NEW_PHONES)).toEqual(loaded)
    })

    it("undoes a loaded contact's change of phone: contactByPhone as right after load", async () => {
      const db = await loadedDatabase()
      const contact = WORLD.contacts.find((contact) => contact.organization_id === ORG_1.organization_id)!
      const loaded = snapshot(db, [], ['+14155550188'])
      await db.update('contacts', contact.id, { phone: '+14155550188' })
      await db.rollback()
      expect(
        db.contactByPhone(ORG_1.organization_id, '+14155550188'),
        'the phone it had only between load and rollback',
      ).toBeUndefined()
      expect(db.contactByPhone(ORG_1.organization_id, contact.phone)?.id).toBe(contact.id)
      expect(snapshot(db, [], ['+14155550188'])).toEqual(loaded)
    })

    it('can write and roll back again and again, each time back to the load', async () => {
      const db = await loadedDatabase()
      const loaded = snapshot(db, NEW_IDS, NEW_PHONES)
      for (let round = 0; round < 3; round++) {
        await writeAMix(db)
        await db.rollback()
        expect(snapshot(db, NEW_IDS, NEW_PHONES), `round ${round}`).toEqual(loaded)
      }
    })

    it('does nothing when nothing was written', async () => {
      const db = await loadedDatabase()
      const loaded = snapshot(db, [], [])
      await db.rollback()
      expect(db.changed).toBe(false)
      expect(snapshot(db, [], [])).toEqual(loaded)
    })

    it('undoes a transaction that throws: every page, get, lookup and the changes as before it, then rolls back to the load', async () => {
      const db = await loadedDatabase()
      const loaded = snapshot(db, NEW_IDS, NEW_PHONES)
      const lead = WORLD.leads.find((lead) => lead.organization_id === ORG_1.organization_id && lead.status === 'new')!
      // A write that went through before, touching a record the failed one changes again.
      await db.transaction(() => db.update('leads', lead.id, { status: 'qualified' }))
      const before = snapshot(db, NEW_IDS, NEW_PHONES)
      const changesBefore = db.changes()
      await expect(
        db.transaction(async () => {
          await writeAMix(db)
          throw new Error('the last record did not fit')
        }),
      ).rejects.toThrow('the last record did not fit')
      expect(snapshot(db, NEW_IDS, NEW_PHONES)).toEqual(before)
      expect(db.changes()).toEqual(changesBefore)
      // What it undid can be written again, and a rollback still reaches the load.
      await db.transaction(() => writeAMix(db))
      await db.rollback()
      expect(snapshot(db, NEW_IDS, NEW_PHONES)).toEqual(loaded)
    })

    it('refuses a transaction inside a transaction', async () => {
      const db = await loadedDatabase()
      await expect(db.transaction(() => db.transaction(async () => undefined))).rejects.toThrow(/do not nest/)
      await expect(db.transaction(async () => 'next')).resolves.toBe('next')
    })

    it('load forgets the writes before it: a rollback then keeps the new load', async () => {
      const db = await loadedDatabase()
      await writeAMix(db)
      await db.load(structuredClone(WORLD))
      expect(db.changed).toBe(false)
      const loaded = snapshot(db, NEW_IDS, NEW_PHONES)
      await db.rollback()
      expect(snapshot(db, NEW_IDS, NEW_PHONES)).toEqual(loaded)
      expect(db.get('contacts', NEW_IDS[0]!)).toBeUndefined()
    })
  })

  describe('messages', () => {
    let db: Database
    beforeAll(async () => {
      db = await loadedDatabase()
    })

    it('gives every call the messages its transcript tells, oldest first', () => {
      expect(WORLD.calls.length).toBeGreaterThan(0)
      for (const call of WORLD.calls) {
        const messages = db.messages(call.id)
        const lines = messages.map(
          ({ role, content }) => `${role === 'assistant' ? 'Assistant' : 'Caller'}: ${content}`,
        )
        expect(lines.join('\n'), call.id).toBe(call.transcript)
        expect(messages.length, call.id).toBe(call.message_times.length)
        const times = messages.map(({ timestamp }) => Date.parse(timestamp))
        expect(times, call.id).toEqual(call.message_times)
        expect(times, call.id).toEqual(times.slice().sort((a, b) => a - b))
        for (const { timestamp } of messages) expect(timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
        if (messages.length > 0) expect(times[0]!, call.id).toBeGreaterThanOrEqual(Date.parse(call.started_at))
      }
    })

    it('has messages of both speakers for a completed call', () => {
      const call = WORLD.calls.find((call) => call.status === 'completed')!
      const roles = new Set(db.messages(call.id).map(({ role }) => role))
      expect([...roles].sort()).toEqual(['assistant', 'caller'])
    })

    it('gives no messages for an id that names no call', () => {
      expect(db.messages('00000000-0000-4000-8000-000000000000')).toEqual([])
      expect(db.messages(WORLD.contacts[0]!.id)).toEqual([])
    })
  })
})
