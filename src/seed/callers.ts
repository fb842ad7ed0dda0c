import type { Faker } from '@faker-js/faker'
import type { CallStatus } from '../schemas/index.js'
import type { StoredContact } from '../schemas/stored.js'
import { callScripts } from './fixtures.js'
import { iso } from './iso.js'
import { uuid } from './random.js'
import type { StoryContext } from './StoryContext.js'

/*
 * The people who call: a new caller's contact, a contact an API client
 * made, their phones, names and email addresses.
 */

/** A caller the organization has not heard from: their contact, made as the call starts. */
export function newCaller(
  context: StoryContext,
  input: { callerPhone?: string; startedAt: number; status: CallStatus },
): StoredContact {
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
    const sender = [
      faker.helpers.arrayElement(['offers', 'info', 'alerts', 'support', 'noreply']),
      '@',
      faker.internet.domainName(),
    ].join('')
    return {
      ...base,
      name: label,
      email: sender,
      company: null,
      notes: 'Caller ID flagged as spam; calls from this number are blocked.',
    }
  }
  const name = personName(faker)
  return {
    ...base,
    name,
    email: emailFor(faker, name),
    company: faker.datatype.boolean(0.1) ? faker.company.name() : null,
    notes:
      input.status === 'failed' ? 'First call dropped before the caller gave a reason.' : 'First reached us by phone.',
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
    notes: faker.helpers.arrayElement([
      'Imported from the CRM.',
      'Added from the website contact form.',
      'Referred by an existing customer.',
    ]),
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
export function emailFor(faker: Faker, name: string): string {
  const local = name
    .toLowerCase()
    .replace(/[^a-z ]/g, '')
    .trim()
    .replace(/ +/g, faker.helpers.arrayElement(['.', '_', '']))
  const digits = faker.datatype.boolean(0.4) ? String(faker.number.int(99)) : ''
  return [local || 'caller', digits, '@', faker.helpers.arrayElement(faker.definitions.internet.free_email)].join('')
}
