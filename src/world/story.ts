import type { Faker } from '@faker-js/faker'
import type { CallEnding, CallWithConversation, StoredAppointment, StoredContact, StoredLead } from '../schemas/stored.js'
import {
  LIVE_CALL_STATUSES,
  type AppointmentStatus,
  type CallStatus,
  type LeadStatus,
  type TransferStatus,
} from '../schemas/index.js'
import { fill, speak, type Conversation, type Slots } from './conversation.js'
import { callScripts, type BusinessType, type OrganizationFixture, type Reason, type ScriptLine } from './fixtures.js'
import { iso, laterOf } from './iso.js'
import { uuid, weighted } from './random.js'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** What a story needs to know about the organization it happens at. */
export interface StoryContext {
  organization: OrganizationFixture
  business: BusinessType
  faker: Faker
  /** Whether a phone number already belongs to a contact of the organization. */
  isPhoneTaken(phone: string): boolean
}

/** One inbound call and what came of it. */
export interface CallStory {
  call: CallWithConversation
  /** The caller's contact after the call: new, or the given one updated. */
  contact: StoredContact
  lead?: StoredLead
  appointment?: StoredAppointment
}

export interface CallInput {
  status: CallStatus
  /** When the call started; it starts earlier where what was said, or a finished call's end, would come after `now`. */
  startedAt: number
  now: number
  /** The caller, when they are already a contact; otherwise a new one is made. */
  contact?: StoredContact
  /** A reason id of the business type; picked by weight when absent. */
  reason?: string
  /** The phone of a new caller; a fresh number when absent. */
  callerPhone?: string
  /** How a completed call ends; drawn when absent (mostly `handled`: the assistant dealt with it). */
  ending?: Ending
}

/** How a completed call ends: handled by the assistant, handed to staff, or a handoff nobody took. */
export type Ending = 'handled' | 'transferred' | 'transfer_failed'

/**
 * A caller rings, the assistant talks, and depending on how it goes the call
 * ends with a contact made or updated, a lead, an appointment, a transfer.
 *
 * @example
 * const story = tellCall(context, { status: 'completed', startedAt, now })
 */
export function tellCall(context: StoryContext, input: CallInput): CallStory {
  const { faker, organization } = context
  const reason = pickReason(context, input.reason)
  let contact = input.contact ?? newCaller(context, input)
  const assistant = faker.helpers.arrayElement(organization.assistants)
  const callerName = contact.name ?? 'Unknown caller'
  const slots: Slots = {
    business: organization.organization_name,
    assistant: assistant.name,
    caller_name: callerName,
    caller_first: callerName.split(' ')[0],
    service: faker.helpers.arrayElement(reason.services),
  }

  const plan = planConversation(context, input.status, reason, input.ending)
  let startedAt = input.startedAt
  const live = LIVE_CALL_STATUSES.includes(input.status)
  // The assistant offers a slot whenever the reason is a booking, even on a call that ends before it is booked.
  const appointmentSlot = reason.creates.includes('appointment')
    ? appointmentSlotAfter(context, input.startedAt + 10 * MINUTE, slots.service!)
    : undefined
  if (appointmentSlot) {
    slots.appointment_day = appointmentSlot.day
    slots.appointment_time = appointmentSlot.time
  }
  let conversation = speak(faker, plan.lines, slots, startedAt)
  let endedAt = live ? null : hangUp(faker, startedAt, conversation.end)
  // What was said, and a finished call's end, lie before now: move the call back where they would not.
  const latest = endedAt ?? conversation.end
  if (latest > input.now) {
    const shift = latest - input.now + (live ? faker.number.int({ min: 1_000, max: 20_000 }) : 0)
    startedAt -= shift
    if (endedAt !== null) endedAt -= shift
    conversation = { ...conversation, times: conversation.times.map((time) => time - shift), end: conversation.end - shift }
    if (!input.contact) contact = { ...contact, created_at: iso(startedAt), updated_at: iso(startedAt) }
  }

  const id = uuid(faker)
  const call: CallWithConversation = {
    id,
    organization_id: organization.organization_id,
    caller_phone: contact.phone,
    caller_name: callerName,
    status: input.status,
    duration_seconds: Math.floor(((endedAt ?? input.now) - startedAt) / 1_000),
    summary: fill(plan.summary, slots),
    transcript: conversation.transcript,
    recording_url: ['https://recordings.call-sandbox.example/', organization.organization_id, '/', id, '.mp3'].join(''),
    transfer_status: plan.transfer,
    started_at: iso(startedAt),
    ended_at: endedAt === null ? null : iso(endedAt),
    assistant_id: assistant.assistant_id,
    contact_id: contact.id,
    created_at: iso(startedAt),
    message_times: conversation.times,
  }

  const wrapUp = (endedAt ?? startedAt) + faker.number.int({ min: 2_000, max: 30_000 })
  const needsEmail = plan.creates.length > 0 && contact.email === null
  const updatedContact: StoredContact = {
    ...contact,
    email: needsEmail ? emailFor(faker, callerName) : contact.email,
    total_calls: contact.total_calls + 1,
    last_call_at: laterOf(contact.last_call_at, call.started_at),
    updated_at: laterOf(contact.updated_at, iso(Math.min(endedAt ?? startedAt, input.now))),
  }

  if (live) call.ending = tellEnding(context, { call, contact: updatedContact, reason, slots, conversation, livePlan: plan, appointmentSlot, now: input.now })

  const story: CallStory = { call, contact: updatedContact }
  if (plan.creates.includes('lead') && wrapUp <= input.now) {
    story.lead = makeLead(context, { call, contact: updatedContact, reason, slots, createdAt: wrapUp, now: input.now })
  }
  if (appointmentSlot && plan.creates.includes('appointment') && wrapUp <= input.now) {
    story.appointment = makeAppointment(context, { call, contact: updatedContact, slot: appointmentSlot, createdAt: wrapUp, now: input.now })
  }
  return story
}

interface ConversationPlan {
  lines: readonly ScriptLine[]
  summary: string
  transfer: TransferStatus | null
  creates: Reason['creates']
}

/** Which words are said, depending on how the call goes. */
function planConversation(context: StoryContext, status: CallStatus, reason: Reason, ending?: Ending): ConversationPlan {
  const { faker, business } = context
  switch (status) {
    case 'blocked': {
      const spam = faker.helpers.arrayElement(callScripts.blocked)
      return { lines: spam.script, summary: spam.summary, transfer: null, creates: [] }
    }
    case 'failed': {
      const dropped = faker.helpers.arrayElement(callScripts.failed)
      return { lines: dropped.script, summary: dropped.summary, transfer: null, creates: [] }
    }
    case 'in-progress': {
      const soFar = reason.script.slice(0, faker.number.int({ min: 2, max: Math.max(2, reason.script.length - 2) }))
      return { lines: soFar, summary: `Call in progress: {caller_first} is asking about ${reason.label}.`, transfer: null, creates: [] }
    }
    case 'forwarding':
      return {
        lines: [...openingOf(reason), ...business.handoff],
        summary: `{caller_name} called about ${reason.label} and asked to speak with a staff member; the call is being transferred.`,
        transfer: 'initiated',
        creates: [],
      }
    case 'completed':
      return completedPlan(context, reason, ending)
  }
}

/** How a completed call goes: handled by the assistant (mostly), or handed to staff. */
function completedPlan(context: StoryContext, reason: Reason, ending?: Ending): ConversationPlan {
  const { faker, business } = context
  const opening = openingOf(reason)
  ending ??= weighted(faker, [
    ['handled', 90],
    ['transferred', 7],
    ['transfer_failed', 3],
  ] as const)
  if (ending === 'transferred') {
    return {
      lines: [...opening, ...business.handoff, ...faker.helpers.arrayElement(callScripts.transfer_completed)],
      summary: `{caller_name} called about ${reason.label} and was transferred to a staff member.`,
      transfer: 'completed',
      creates: [],
    }
  }
  if (ending === 'transfer_failed') {
    return {
      lines: [...opening, ...business.handoff, ...faker.helpers.arrayElement(callScripts.transfer_failed)],
      summary: `{caller_name} called about ${reason.label} and asked for a staff member; nobody was available, so the assistant took a message for a call back.`,
      transfer: 'failed',
      creates: [],
    }
  }
  return { lines: reason.script, summary: faker.helpers.arrayElement(reason.summary), transfer: null, creates: reason.creates }
}

/** The first half of a reason's script: what is said before a caller asks for staff. */
function openingOf(reason: Reason): readonly ScriptLine[] {
  return reason.script.slice(0, Math.max(2, Math.ceil(reason.script.length / 2)))
}

interface EndingInput {
  call: CallWithConversation
  contact: StoredContact
  reason: Reason
  slots: Slots
  conversation: Conversation
  livePlan: ConversationPlan
  appointmentSlot: AppointmentSlot | undefined
  now: number
}

/**
 * How a live call will end: an in-progress call goes on to its end and is
 * handled by the assistant; a forwarding call is picked up by staff, or
 * nobody answers and the assistant takes a message. What is still to be
 * said is spoken after `now`, so the call is live until then.
 */
function tellEnding(context: StoryContext, { call, contact, reason, slots, conversation, livePlan, appointmentSlot, now }: EndingInput): CallEnding {
  const { faker } = context
  const ending: Ending = call.status === 'forwarding' ? weighted(faker, [['transferred', 70], ['transfer_failed', 30]] as const) : 'handled'
  const plan = completedPlan(context, reason, ending)
  const rest = speak(faker, plan.lines.slice(livePlan.lines.length), slots, Math.max(conversation.end, now) + faker.number.int({ min: 3_000, max: 15_000 }))
  const startedAt = Date.parse(call.started_at)
  const endedAt = hangUp(faker, startedAt, rest.end)
  const summary = fill(plan.summary, slots)
  const ended = {
    status: 'completed' as const,
    transfer_status: plan.transfer,
    summary,
    transcript: [call.transcript, rest.transcript].join('\n'),
    ended_at: iso(endedAt),
    duration_seconds: (endedAt - startedAt) / 1_000,
  }
  const email = plan.creates.length > 0 && contact.email === null ? emailFor(faker, call.caller_name) : contact.email
  const wrapUp = endedAt + faker.number.int({ min: 2_000, max: 30_000 })
  const endedCall = { ...call, ...ended }
  const withEmail = { ...contact, email: email }
  return {
    call: ended,
    message_times: [...conversation.times, ...rest.times],
    contact_email: email,
    ...(plan.creates.includes('lead') && { lead: makeLead(context, { call: endedCall, contact: withEmail, reason, slots, createdAt: wrapUp, now: wrapUp }) }),
    ...(appointmentSlot &&
      plan.creates.includes('appointment') && {
        appointment: makeAppointment(context, { call: endedCall, contact: withEmail, slot: appointmentSlot, createdAt: wrapUp, now: wrapUp }),
      }),
  }
}

/**
 * When a call whose last words were said at `lastWordsAt` ends: a moment
 * later, at a whole number of seconds after its start, so that
 * `duration_seconds` is exactly `ended_at - started_at`.
 */
function hangUp(faker: Faker, startedAt: number, lastWordsAt: number): number {
  return startedAt + Math.ceil((lastWordsAt + faker.number.int({ min: 1_000, max: 4_000 }) - startedAt) / 1_000) * 1_000
}

function pickReason(context: StoryContext, id: string | undefined): Reason {
  const { reasons } = context.business
  if (id !== undefined) {
    const reason = reasons.find((candidate) => candidate.id === id)
    if (!reason) throw new Error(`Unknown reason "${id}" for ${context.business.id}; known: ${reasons.map((r) => r.id).join(', ')}`)
    return reason
  }
  return weighted(context.faker, reasons.map((reason) => [reason, reason.weight] as const))
}

/** A caller the organization has not heard from: their contact, made as the call starts. */
function newCaller(context: StoryContext, input: CallInput): StoredContact {
  const { faker, organization } = context
  const phone = input.callerPhone ?? freshPhone(context)
  const at = iso(input.startedAt)
  const base = {
    id: uuid(faker),
    organization_id: organization.organization_id,
    phone,
    source: 'inbound_call' as const,
    total_calls: 0,
    last_call_at: null,
    created_at: at,
    updated_at: at,
  }
  if (input.status === 'blocked') {
    const label = faker.helpers.arrayElement(callScripts.blocked).caller_name
    const sender = [faker.helpers.arrayElement(['offers', 'info', 'alerts', 'support', 'noreply']), '@', faker.internet.domainName()].join('')
    return { ...base, name: label, email: sender, company: null, notes: 'Caller ID flagged as spam; calls from this number are blocked.' }
  }
  const name = personName(faker)
  return {
    ...base,
    name,
    email: emailFor(faker, name),
    company: faker.datatype.boolean(0.1) ? faker.company.name() : null,
    notes: input.status === 'failed' ? 'First call dropped before the caller gave a reason.' : 'First reached us by phone.',
  }
}

/** A contact an API client created (seeded world): not from a call. */
export function apiContact(context: StoryContext, createdAt: number): StoredContact {
  const { faker, organization } = context
  const name = personName(faker)
  return {
    id: uuid(faker),
    organization_id: organization.organization_id,
    phone: freshPhone(context),
    name,
    email: emailFor(faker, name),
    company: faker.datatype.boolean(0.4) ? faker.company.name() : null,
    source: 'api',
    total_calls: 0,
    last_call_at: null,
    notes: faker.helpers.arrayElement(['Imported from the CRM.', 'Added from the website contact form.', 'Referred by an existing customer.']),
    created_at: iso(createdAt),
    updated_at: iso(createdAt),
  }
}

/** An unused +1 number in one of the organization's area codes. */
export function freshPhone(context: StoryContext): string {
  const { faker, organization } = context
  for (;;) {
    const area = faker.helpers.arrayElement(organization.area_codes)
    const line = String(faker.number.int(9_999)).padStart(4, '0')
    const phone = `+1${area}${faker.number.int({ min: 200, max: 999 })}${line}`
    if (!context.isPhoneTaken(phone)) return phone
  }
}

/**
 * A full name from Faker's name lists.
 *
 * @note Straight from the lists: `faker.person.lastName()` evaluates a
 * pattern on every call and made a new caller cost 5 µs more.
 */
function personName(faker: Faker): string {
  const { first_name, last_name } = faker.definitions.person
  const first = faker.helpers.arrayElement(first_name.generic!)
  let last = faker.helpers.arrayElement(last_name.generic!)
  // Some names are on both lists: no "Murphy Murphy".
  while (last === first) last = faker.helpers.arrayElement(last_name.generic!)
  return [first, ' ', last].join('')
}

/** An address like `dana.whitfield42@gmail.com`. */
function emailFor(faker: Faker, name: string): string {
  const local = name.toLowerCase().replace(/[^a-z ]/g, '').trim().replace(/ +/g, faker.helpers.arrayElement(['.', '_', '']))
  const digits = faker.datatype.boolean(0.4) ? String(faker.number.int(99)) : ''
  return [local || 'caller', digits, '@', faker.helpers.arrayElement(faker.definitions.internet.free_email)].join('')
}

interface LeadInput {
  call: CallWithConversation
  contact: StoredContact
  reason: Reason
  slots: Slots
  createdAt: number
  now: number
}

function makeLead(context: StoryContext, { call, contact, reason, slots, createdAt, now }: LeadInput): StoredLead {
  const { faker } = context
  const age = now - createdAt
  const status: LeadStatus =
    age < DAY
      ? weighted(faker, [['new', 80], ['contacted', 20]] as const)
      : weighted(faker, [['new', 15], ['contacted', 25], ['qualified', 20], ['converted', 22], ['lost', 18]] as const)
  const updatedAt = status === 'new' ? createdAt : createdAt + faker.number.int({ min: 30 * MINUTE, max: Math.max(30 * MINUTE, Math.min(age, 7 * DAY)) })
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

interface AppointmentSlot {
  start: number
  end: number
  service: string
  /** As the assistant says it, in the business's local time. */
  day: string
  time: string
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']

/** An opening in business hours, one to thirty business days after `after`. */
function appointmentSlotAfter(context: StoryContext, after: number, serviceName: string): AppointmentSlot {
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

function makeAppointment(context: StoryContext, { call, contact, slot, createdAt, now }: AppointmentInput): StoredAppointment {
  const { faker } = context
  const id = uuid(faker)
  // Most customers confirm once the reminder goes out, in the week before.
  const status: AppointmentStatus =
    slot.start <= now
      ? weighted(faker, [['completed', 75], ['no_show', 12], ['cancelled', 13]] as const)
      : slot.start - now < 7 * DAY
        ? weighted(faker, [['confirmed', 60], ['booked', 30], ['cancelled', 10]] as const)
        : weighted(faker, [['booked', 80], ['confirmed', 10], ['cancelled', 10]] as const)
  const lastChange = Math.min(now, status === 'completed' || status === 'no_show' ? slot.end + 30 * MINUTE : slot.start - HOUR)
  const updatedAt = status === 'booked' ? createdAt : Math.max(createdAt, createdAt + faker.number.int({ min: 0, max: Math.max(0, lastChange - createdAt) }))
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
