import type { Faker } from '@faker-js/faker'
import { ContactExistsError } from './domainErrors.js'
import { CallStatus, CreateContactRequest, E164_PATTERN, LIVE_CALL_STATUSES, parseInstant } from '../schemas/index.js'
import { parseBody } from '../schemas/parseBody.js'
import type { StoredAppointment, StoredCall, StoredContact, StoredLead } from '../schemas/stored.js'
import { businessTypes } from '../seed/fixtures.js'
import { laterOf, MINUTE } from '../seed/iso.js'
import { uuid, weighted } from '../seed/random.js'
import { tellCall, type CallStory, type Ending } from '../seed/story.js'
import type { Clock } from './Clock.js'
import type { KeyRing } from './KeyRing.js'
import type { Write, WriteQueue } from './WriteQueue.js'

export interface AddCallInput {
  /** Default: the first organization. */
  organization_id?: string
  /** A contact's phone makes them the caller; another number is a new caller. */
  caller_phone?: string
  /** Default `completed`. */
  status?: CallStatus
  /** A reason id of the organization's business type (see `fixtures/business-types/`); default: picked by weight. */
  reason?: string
  /** When the call started (ISO); default ten minutes ago, or a minute ago for a live call. */
  started_at?: string
}

/** What `addCall` and its kin made: the call and what came of it. */
export interface AddedCall {
  call: StoredCall
  contact: StoredContact
  lead?: StoredLead
  appointment?: StoredAppointment
}

export type LeadOverrides = Partial<Pick<StoredLead, 'status' | 'urgency' | 'interest' | 'qualification_reason'>>
export type AppointmentOverrides = Partial<Pick<StoredAppointment, 'status' | 'service_type'>>
/** A completed call whose reason brings a lead (`Sandbox.addLead`), and the lead's overrides. */
export type AddLeadInput = Omit<AddCallInput, 'status' | 'reason'> & { lead?: LeadOverrides }
/** A completed call whose reason books an appointment (`Sandbox.addAppointment`), and the appointment's overrides. */
export type AddAppointmentInput = Omit<AddCallInput, 'status' | 'reason'> & { appointment?: AppointmentOverrides }

/**
 * Records made after the seed: a contact as `POST /v1/contacts` makes it,
 * and inbound calls told like the seeded ones, with the contact, lead or
 * appointment they bring. Each is one write.
 *
 * @example
 * const factories = new Factories(queue, () => keys, clock)
 * const { call, lead } = await factories.addCall({ reason: 'implant_quote' })
 */
export class Factories {
  constructor(
    private readonly queue: WriteQueue,
    private readonly keys: () => KeyRing,
    private readonly clock: Clock,
  ) {}

  /**
   * A contact, with the checks and errors of `POST /v1/contacts`: 422 for a bad field, a `ContactExistsError` for a
   * phone taken.
   */
  async addContact(input: CreateContactRequest & { organization_id?: string }): Promise<StoredContact> {
    const { organization_id, ...fields } = input
    const organizationId = this.keys().organization(organization_id).organization_id
    const body = parseBody(CreateContactRequest, fields)
    return this.queue.write(async ({ db, faker }) => {
      const existing = db.contactByPhone(organizationId, body.phone)
      if (existing) {
        throw new ContactExistsError(body.phone, existing.id)
      }
      const now = this.clock.iso()
      return db.insert('contacts', {
        id: uuid(faker),
        organization_id: organizationId,
        phone: body.phone,
        name: body.name ?? null,
        email: body.email ?? null,
        company: body.company ?? null,
        source: 'api',
        total_calls: 0,
        last_call_at: null,
        notes: body.notes ?? null,
        created_at: now,
        updated_at: now,
      })
    })
  }

  /** An inbound call, told like the seeded ones. */
  addCall(input: AddCallInput = {}): Promise<AddedCall> {
    return this.queue.write(async (write) => this.call(write, input))
  }

  /** A completed call the assistant handled, whose reason brings a lead, and that lead with `overrides` applied. */
  addLead(
    input: Omit<AddCallInput, 'status' | 'reason'>,
    overrides: LeadOverrides = {},
  ): Promise<AddedCall & { lead: StoredLead }> {
    return this.#addCallThatCreates(
      'lead',
      input,
      (story) => story.lead && { ...story, lead: { ...story.lead, ...overrides } },
    )
  }

  /**
   * A completed call the assistant handled, whose reason books an appointment, and that appointment with `overrides`
   * applied.
   */
  addAppointment(
    input: Omit<AddCallInput, 'status' | 'reason'>,
    overrides: AppointmentOverrides = {},
  ): Promise<AddedCall & { appointment: StoredAppointment }> {
    return this.#addCallThatCreates(
      'appointment',
      input,
      (story) => story.appointment && { ...story, appointment: { ...story.appointment, ...overrides } },
    )
  }

  /** Inside a write: tells a call and stores what it made. */
  async call(write: Write, input: AddCallInput, ending?: Ending): Promise<AddedCall> {
    return this.#store(write, this.#tell(write, input, ending))
  }

  #addCallThatCreates<T extends AddedCall>(
    what: 'lead' | 'appointment',
    input: Omit<AddCallInput, 'status' | 'reason'>,
    withOverrides: (story: CallStory) => CallStory | undefined,
  ): Promise<T> {
    return this.queue.write(async (write) => {
      const organization = this.keys().organization(input.organization_id)
      const reasons = businessTypes
        .get(organization.business_type)!
        .reasons.filter((candidate) => candidate.creates.includes(what))
      if (reasons.length === 0) throw new TypeError(`No reason of ${organization.business_type} creates a ${what}.`)
      const reason = weighted(
        write.faker,
        reasons.map((candidate) => [candidate.id, candidate.weight] as const),
      )
      const story = withOverrides(this.#tell(write, { ...input, status: 'completed', reason }, 'handled'))
      if (!story)
        throw new TypeError(`The call ended too recently for its ${what} to exist yet: give an earlier started_at.`)
      return (await this.#store(write, story)) as T
    })
  }

  /** The story of a call, told but not stored: every input is checked first. */
  #tell({ db, faker }: { db: Write['db']; faker: Faker }, input: AddCallInput, ending?: Ending): CallStory {
    const organization = this.keys().organization(input.organization_id)
    const status = CallStatus.safeParse(input.status ?? 'completed')
    if (!status.success)
      throw new TypeError(`status must be one of ${CallStatus.options.join(', ')}; got ${String(input.status)}.`)
    if (input.caller_phone !== undefined && !E164_PATTERN.test(input.caller_phone)) {
      throw new TypeError(`caller_phone must be an E.164 number such as +14155550123; got ${input.caller_phone}.`)
    }
    const now = this.clock.now()
    const live = LIVE_CALL_STATUSES.includes(status.data)
    const startedAt = input.started_at === undefined ? now - (live ? 1 : 10) * MINUTE : parseInstant(input.started_at)
    if (startedAt === undefined || startedAt > now) {
      throw new TypeError(
        `started_at must be an ISO 8601 date-time no later than the sandbox clock (${this.clock.iso()}); got ${input.started_at}.`,
      )
    }
    return tellCall(
      {
        organization,
        business: businessTypes.get(organization.business_type)!,
        faker,
        isPhoneTaken: (phone) => db.contactByPhone(organization.organization_id, phone) !== undefined,
      },
      {
        status: status.data,
        startedAt,
        now,
        contact:
          input.caller_phone === undefined
            ? undefined
            : db.contactByPhone(organization.organization_id, input.caller_phone),
        reason: input.reason,
        callerPhone: input.caller_phone,
        ending,
      },
    )
  }

  /**
   * Stores what a story made: the caller's contact (new or updated), the
   * call, a lead, an appointment. They are recorded now: their `created_at`
   * (and `updated_at`) is the sandbox clock, whenever the call started, so
   * that a client polling with `since` sees them arrive.
   */
  async #store({ db }: Write, story: CallStory): Promise<AddedCall> {
    const recorded = this.clock.iso()
    const later = (at: string) => laterOf(at, recorded)
    const existing = db.get('contacts', story.contact.id)
    const contact = existing
      ? await db.update('contacts', existing.id, { ...story.contact, updated_at: later(story.contact.updated_at) })
      : await db.insert('contacts', {
          ...story.contact,
          created_at: recorded,
          updated_at: later(story.contact.updated_at),
        })
    const call = await db.insert('calls', { ...story.call, created_at: recorded })
    const lead =
      story.lead &&
      (await db.insert('leads', { ...story.lead, created_at: recorded, updated_at: later(story.lead.updated_at) }))
    const appointment =
      story.appointment &&
      (await db.insert('appointments', {
        ...story.appointment,
        created_at: recorded,
        updated_at: later(story.appointment.updated_at),
      }))
    return { call, contact, ...(lead && { lead }), ...(appointment && { appointment }) }
  }
}
