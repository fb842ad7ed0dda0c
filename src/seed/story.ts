import type { Faker } from '@faker-js/faker'
import type {
  CallEnding,
  CallWithConversation,
  StoredAppointment,
  StoredContact,
  StoredLead,
} from '../schemas/stored.js'
import { LIVE_CALL_STATUSES, type CallStatus, type TransferStatus } from '../schemas/index.js'
import { emailFor, newCaller } from './callers.js'
import { fill, speak, type Conversation, type Slots } from './conversation.js'
import { callScripts, type Reason, type ScriptLine } from './fixtures.js'
import { iso, laterOf, MINUTE } from './iso.js'
import { appointmentSlotAfter, makeAppointment, makeLead, type AppointmentSlot } from './outcomes.js'
import { uuid, weighted } from './random.js'
import type { StoryContext } from './StoryContext.js'

export type { StoryContext } from './StoryContext.js'

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
    conversation = {
      ...conversation,
      times: conversation.times.map((time) => time - shift),
      end: conversation.end - shift,
    }
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

  if (live)
    call.ending = tellEnding(context, {
      call,
      contact: updatedContact,
      reason,
      slots,
      conversation,
      livePlan: plan,
      appointmentSlot,
      now: input.now,
    })

  const story: CallStory = { call, contact: updatedContact }
  if (plan.creates.includes('lead') && wrapUp <= input.now) {
    story.lead = makeLead(context, { call, contact: updatedContact, reason, slots, createdAt: wrapUp, now: input.now })
  }
  if (appointmentSlot && plan.creates.includes('appointment') && wrapUp <= input.now) {
    story.appointment = makeAppointment(context, {
      call,
      contact: updatedContact,
      slot: appointmentSlot,
      createdAt: wrapUp,
      now: input.now,
    })
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
function planConversation(
  context: StoryContext,
  status: CallStatus,
  reason: Reason,
  ending?: Ending,
): ConversationPlan {
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
      return {
        lines: soFar,
        summary: `Call in progress: {caller_first} is asking about ${reason.label}.`,
        transfer: null,
        creates: [],
      }
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
  return {
    lines: reason.script,
    summary: faker.helpers.arrayElement(reason.summary),
    transfer: null,
    creates: reason.creates,
  }
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
function tellEnding(
  context: StoryContext,
  { call, contact, reason, slots, conversation, livePlan, appointmentSlot, now }: EndingInput,
): CallEnding {
  const { faker } = context
  const ending: Ending =
    call.status === 'forwarding'
      ? weighted(faker, [
          ['transferred', 70],
          ['transfer_failed', 30],
        ] as const)
      : 'handled'
  const plan = completedPlan(context, reason, ending)
  const rest = speak(
    faker,
    plan.lines.slice(livePlan.lines.length),
    slots,
    Math.max(conversation.end, now) + faker.number.int({ min: 3_000, max: 15_000 }),
  )
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
    ...(plan.creates.includes('lead') && {
      lead: makeLead(context, { call: endedCall, contact: withEmail, reason, slots, createdAt: wrapUp, now: wrapUp }),
    }),
    ...(appointmentSlot &&
      plan.creates.includes('appointment') && {
        appointment: makeAppointment(context, {
          call: endedCall,
          contact: withEmail,
          slot: appointmentSlot,
          createdAt: wrapUp,
          now: wrapUp,
        }),
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
    if (!reason)
      throw new Error(
        `Unknown reason "${id}" for ${context.business.id}; known: ${reasons.map((r) => r.id).join(', ')}`,
      )
    return reason
  }
  return weighted(
    context.faker,
    reasons.map((reason) => [reason, reason.weight] as const),
  )
}
