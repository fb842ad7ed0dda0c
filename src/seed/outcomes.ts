import type { AppointmentStatus, LeadStatus } from '../schemas/index.js'
import type { CallWithConversation, StoredAppointment, StoredContact, StoredLead } from '../schemas/stored.js'
import type { Slots } from './conversation.js'
import { fill } from './conversation.js'
import type { Reason } from './fixtures.js'
import { DAY, HOUR, iso, MINUTE } from './iso.js'
import { uuid, weighted } from './random.js'
import type { StoryContext } from './StoryContext.js'

/*
 * What a call can bring: a lead, and an appointment in a slot the
 * assistant offered, each with a status that fits its age.
 */

interface LeadInput {
  call: CallWithConversation
  contact: StoredContact
  reason: Reason
  slots: Slots
  createdAt: number
  now: number
}

export function makeLead(
  context: StoryContext,
  { call, contact, reason, slots, createdAt, now }: LeadInput,
): StoredLead {
  const { faker } = context
  const age = now - createdAt
  const status: LeadStatus =
    age < DAY
      ? weighted(faker, [
          ['new', 80],
          ['contacted', 20],
        ] as const)
      : weighted(faker, [
          ['new', 15],
          ['contacted', 25],
          ['qualified', 20],
          ['converted', 22],
          ['lost', 18],
        ] as const)
  const updatedAt =
    status === 'new'
      ? createdAt
      : createdAt + faker.number.int({ min: 30 * MINUTE, max: Math.max(30 * MINUTE, Math.min(age, 7 * DAY)) })
  return {
    id: uuid(faker),
    organization_id: call.organization_id,
    caller_phone: call.caller_phone,
    caller_name: call.caller_name,
    caller_email: contact.email!,
    status,
    urgency: faker.helpers.arrayElement(reason.urgency),
    interest: fill(faker.helpers.arrayElement(reason.interest), slots),
    qualification_reason: fill(faker.helpers.arrayElement(reason.qualification_reasons), slots),
    call_summary: call.summary,
    call_log_id: call.id,
    contact_id: contact.id,
    created_at: iso(createdAt),
    updated_at: iso(Math.min(updatedAt, now)),
  }
}

export interface AppointmentSlot {
  start: number
  end: number
  service: string
  /** As the assistant says it, in the business's local time. */
  day: string
  time: string
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]

/** An opening in business hours, one to thirty business days after `after`. */
export function appointmentSlotAfter(context: StoryContext, after: number, serviceName: string): AppointmentSlot {
  const { faker, business, organization } = context
  const offset = organization.utc_offset_minutes * MINUTE
  const service = business.services.find((candidate) => candidate.name === serviceName)!
  const { open, close, days } = business.hours
  const localDay = new Date(Math.floor((after + offset) / DAY) * DAY)
  let businessDays = faker.number.int({ min: 1, max: 30 })
  while (businessDays > 0) {
    localDay.setUTCDate(localDay.getUTCDate() + 1)
    if (days.includes(localDay.getUTCDay() || 7)) businessDays--
  }
  const lastStart = Math.max(open * 60, close * 60 - service.minutes)
  const minuteOfDay = open * 60 + 30 * faker.number.int({ min: 0, max: Math.floor((lastStart - open * 60) / 30) })
  const localStart = localDay.getTime() + minuteOfDay * MINUTE
  const hour = Math.floor(minuteOfDay / 60)
  return {
    start: localStart - offset,
    end: localStart - offset + service.minutes * MINUTE,
    service: service.name,
    day: `${WEEKDAYS[localDay.getUTCDay()]}, ${MONTHS[localDay.getUTCMonth()]} ${localDay.getUTCDate()}`,
    time: `${((hour + 11) % 12) + 1}:${String(minuteOfDay % 60).padStart(2, '0')} ${hour < 12 ? 'AM' : 'PM'}`,
  }
}

interface AppointmentInput {
  call: CallWithConversation
  contact: StoredContact
  slot: AppointmentSlot
  createdAt: number
  now: number
}

export function makeAppointment(
  context: StoryContext,
  { call, contact, slot, createdAt, now }: AppointmentInput,
): StoredAppointment {
  const { faker } = context
  const id = uuid(faker)
  // Most customers confirm once the reminder goes out, in the week before.
  const status: AppointmentStatus =
    slot.start <= now
      ? weighted(faker, [
          ['completed', 75],
          ['no_show', 12],
          ['cancelled', 13],
        ] as const)
      : slot.start - now < 7 * DAY
        ? weighted(faker, [
            ['confirmed', 60],
            ['booked', 30],
            ['cancelled', 10],
          ] as const)
        : weighted(faker, [
            ['booked', 80],
            ['confirmed', 10],
            ['cancelled', 10],
          ] as const)
  const lastChange = Math.min(
    now,
    status === 'completed' || status === 'no_show' ? slot.end + 30 * MINUTE : slot.start - HOUR,
  )
  const updatedAt =
    status === 'booked'
      ? createdAt
      : Math.max(createdAt, createdAt + faker.number.int({ min: 0, max: Math.max(0, lastChange - createdAt) }))
  return {
    id,
    organization_id: call.organization_id,
    caller_phone: call.caller_phone,
    caller_name: call.caller_name,
    appointment_date: iso(slot.start).slice(0, 10),
    appointment_time_start: iso(slot.start),
    appointment_time_end: iso(slot.end),
    service_type: slot.service,
    status,
    calendar_event_link: ['https://calendar.call-sandbox.example/events/', id].join(''),
    call_log_id: call.id,
    contact_id: contact.id,
    created_at: iso(createdAt),
    updated_at: iso(updatedAt),
  }
}
