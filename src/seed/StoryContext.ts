import type { Faker } from '@faker-js/faker'
import type { BusinessType, OrganizationFixture } from './fixtures.js'

/** What a story needs to know about the organization it happens at. */
export interface StoryContext {
  organization: OrganizationFixture
  business: BusinessType
  faker: Faker
  /** Whether a phone number already belongs to a contact of the organization. */
  isPhoneTaken(phone: string): boolean
}
