import type { Faker } from '@faker-js/faker'
import { byKind, type StoredContact, type WorldRecords } from '../schemas/stored.js'
import { AppointmentStatus, LeadStatus, Urgency, type CallStatus } from '../schemas/index.js'
import { businessTypes, type OrganizationFixture } from './fixtures.js'
import { DAY, iso, MINUTE } from './iso.js'
import { createFaker, weighted } from './random.js'
import { apiContact } from './callers.js'
import { nextTurn, SLICE_SIZE } from './slices.js'
import { tellCall, type StoryContext } from './story.js'

/** The seeded history reaches this far back from `now`. */
export const HISTORY_DAYS = 90

export interface SeedOptions {
  seed: number
  /** The instant the world is seeded at, epoch ms. */
  now: number
  organizations: readonly OrganizationFixture[]
}

/**
 * Builds the whole world from (`seed`, `now`): the same inputs give the same
 * records, to the byte. Each organization draws from its own random stream,
 * so that resizing one does not change the others.
 *
 * @example
 * const world = seedWorld({ seed: 1, now: Date.parse('2026-11-20T12:00:00Z'), organizations })
 */
export function seedWorld(options: SeedOptions): WorldRecords {
  const steps = seeding(options)
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
  }
}

/**
 * `seedWorld`, a slice of calls at a time, the event loop running between
 * two slices: the same records, while the process goes on answering.
 *
 * @example
 * const world = await seedWorldInSlices({ seed: 1, now: Date.parse('2026-11-20T12:00:00Z'), organizations })
 */
export async function seedWorldInSlices(options: SeedOptions): Promise<WorldRecords> {
  const steps = seeding(options)
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
    await nextTurn()
  }
}

/** The seed's work, pausing (a `yield`) after every `SLICE_SIZE` calls drawn or told. */
function* seeding(options: SeedOptions): Generator<void, WorldRecords> {
  const world = byKind(() => []) as WorldRecords
  for (const organization of options.organizations) {
    yield* seedOrganization(world, organization, options)
  }
  return world
}

function* seedOrganization(
  world: WorldRecords,
  organization: OrganizationFixture,
  { seed, now }: SeedOptions,
): Generator<void, void> {
  const business = businessTypes.get(organization.business_type)
  if (!business) {
    throw new Error(
      `Organization ${organization.organization_id} has business_type "${organization.business_type}"; known types: ${[...businessTypes.keys()].join(', ')}`,
    )
  }
  const faker = createFaker(seed, organization.organization_id)
  const contacts = new Map<string, StoredContact>()
  const phones = new Set<string>()
  const context: StoryContext = { organization, business, faker, isPhoneTaken: (phone) => phones.has(phone) }
  const remember = (contact: StoredContact) => {
    contacts.set(contact.id, contact)
    phones.add(contact.phone)
  }

  // Contacts an API client created: they join the callers once they exist.
  const pendingApiContacts = Array.from({ length: organization.api_contacts }, () =>
    apiContact(context, now - faker.number.int({ min: 60 * MINUTE, max: HISTORY_DAYS * DAY })),
  ).sort((a, b) => (a.created_at < b.created_at ? -1 : 1))
  pendingApiContacts.forEach(remember)

  const callers: StoredContact[] = []
  const spammers: StoredContact[] = []
  let nextApiContact = 0
  let told = 0
  for (const { startedAt, status } of yield* callSchedule(faker, organization, now)) {
    if (++told % SLICE_SIZE === 0) yield
    while (
      nextApiContact < pendingApiContacts.length &&
      Date.parse(pendingApiContacts[nextApiContact]!.created_at) <= startedAt
    ) {
      callers.push(pendingApiContacts[nextApiContact++]!)
    }
    // Some callers ring again; spam numbers too.
    const pool = status === 'blocked' ? spammers : callers
    const repeat = pool.length > 0 && faker.datatype.boolean(status === 'blocked' ? 0.3 : 0.28)
    const known = repeat ? contacts.get(faker.helpers.arrayElement(pool).id) : undefined

    const story = tellCall(context, { status, startedAt, now, contact: known })
    if (!known) (status === 'blocked' ? spammers : callers).push(story.contact)
    remember(story.contact)
    world.calls.push(story.call)
    if (story.lead) world.leads.push(story.lead)
    if (story.appointment) world.appointments.push(story.appointment)
  }
  // A loop, not push(...): spread arguments overflow the stack past about 150,000 contacts.
  for (const contact of contacts.values()) world.contacts.push(contact)
  showEveryState(world, organization.organization_id, now)
}

const FUTURE_APPOINTMENT: readonly AppointmentStatus[] = ['booked', 'confirmed', 'cancelled']
const PAST_APPOINTMENT: readonly AppointmentStatus[] = ['completed', 'no_show', 'cancelled']

/**
 * Every state a UI must handle shows up in the organization: a lead status,
 * urgency or appointment status the draws missed is given to the newest
 * record that can take it and whose own value others share.
 *
 * @note Without it, whether "confirmed" appeared depended on `now`: one clock
 * in three left it out of the default world.
 */
function showEveryState(world: WorldRecords, organizationId: string, now: number): void {
  const leads = world.leads.filter((lead) => lead.organization_id === organizationId)
  const appointments = world.appointments.filter((appointment) => appointment.organization_id === organizationId)
  for (const status of LeadStatus.options) {
    const lead = takerOf(leads, 'status', status, () => true)
    if (!lead) continue
    lead.status = status
    lead.updated_at =
      status === 'new'
        ? lead.created_at
        : iso(Math.min(now, Math.max(Date.parse(lead.updated_at), Date.parse(lead.created_at) + 60 * MINUTE)))
  }
  for (const urgency of Urgency.options) {
    const lead = takerOf(leads, 'urgency', urgency, () => true)
    if (lead) lead.urgency = urgency
  }
  for (const status of AppointmentStatus.options) {
    const appointment = takerOf(appointments, 'status', status, (candidate) =>
      (Date.parse(candidate.appointment_time_start) > now ? FUTURE_APPOINTMENT : PAST_APPOINTMENT).includes(status),
    )
    if (!appointment) continue
    const created = Date.parse(appointment.created_at)
    const start = Date.parse(appointment.appointment_time_start)
    const updated: Record<AppointmentStatus, number> = {
      booked: created,
      confirmed: Math.max(created, Math.min(now, start - DAY)),
      cancelled: created + Math.floor((Math.min(start, now) - created) / 2),
      completed: Math.min(now, Date.parse(appointment.appointment_time_end) + 30 * MINUTE),
      no_show: Math.min(now, Date.parse(appointment.appointment_time_end) + 30 * MINUTE),
    }
    appointment.status = status
    appointment.updated_at = iso(updated[status])
  }
}

/**
 * The newest record that lacks `value`, can take it, and whose own value another record shares; none when `value` shows
 * already.
 */
function takerOf<T extends { created_at: string }, F extends keyof T>(
  records: T[],
  field: F,
  value: T[F],
  canTake: (record: T) => boolean,
): T | undefined {
  if (records.some((record) => record[field] === value)) return undefined
  const counts = new Map<T[F], number>()
  for (const record of records) counts.set(record[field], (counts.get(record[field]) ?? 0) + 1)
  let newest: T | undefined
  for (const record of records) {
    if (counts.get(record[field])! > 1 && canTake(record) && (!newest || record.created_at > newest.created_at))
      newest = record
  }
  return newest
}

interface ScheduledCall {
  startedAt: number
  status: CallStatus
}

/**
 * When the organization's calls started, oldest first: over the last 90 days,
 * mostly in business hours on weekdays; the last few are still on the line.
 */
function* callSchedule(faker: Faker, organization: OrganizationFixture, now: number): Generator<void, ScheduledCall[]> {
  const total = organization.calls
  const live = Math.min(total, 5, Math.ceil(total / 75))
  const offset = organization.utc_offset_minutes * MINUTE
  const latestEnded = now - 15 * MINUTE
  const ended: ScheduledCall[] = []
  for (let drawn = 1; ended.length < total - live; drawn++) {
    if (drawn % SLICE_SIZE === 0) yield
    const daysAgo = faker.number.int({ min: 0, max: HISTORY_DAYS - 1 })
    const localMidnight = Math.floor((now + offset) / DAY) * DAY - daysAgo * DAY
    const weekday = new Date(localMidnight).getUTCDay()
    // Fewer calls at weekends: skip most weekend draws.
    if ((weekday === 0 && faker.datatype.boolean(0.8)) || (weekday === 6 && faker.datatype.boolean(0.6))) continue
    const hour = weighted(faker, HOURS)
    const startedAt = localMidnight - offset + hour * 60 * MINUTE + faker.number.int({ min: 0, max: 60 * MINUTE - 1 })
    if (startedAt > latestEnded || startedAt < now - HISTORY_DAYS * DAY) continue
    const status = weighted(faker, [
      ['completed', 80],
      ['failed', 10],
      ['blocked', 10],
    ] as const)
    ended.push({ startedAt, status })
  }
  ended.sort((a, b) => a.startedAt - b.startedAt)
  const onTheLine = Array.from({ length: live }, (_, i) => ({
    startedAt: now - faker.number.int({ min: 1 * MINUTE, max: 9 * MINUTE }),
    status: (i % 2 === 0 ? 'in-progress' : 'forwarding') as CallStatus,
  })).sort((a, b) => a.startedAt - b.startedAt)
  return [...ended, ...onTheLine]
}

/** Relative call volume by local hour: office hours, a lunch dip, a few after hours. */
const HOURS = [1, 0, 0, 0, 0, 1, 2, 6, 14, 18, 18, 16, 11, 14, 16, 15, 13, 10, 6, 4, 3, 2, 2, 1].map(
  (weight, hour) => [hour, weight] as const,
)
