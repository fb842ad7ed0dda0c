import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import organizationsJson from '../../fixtures/organizations.json' with { type: 'json' }
import callScriptsJson from '../../fixtures/call-scripts.json' with { type: 'json' }
import dentalClinicJson from '../../fixtures/business-types/dental-clinic.json' with { type: 'json' }
import plumbingHvacJson from '../../fixtures/business-types/plumbing-hvac.json' with { type: 'json' }
import veterinaryClinicJson from '../../fixtures/business-types/veterinary-clinic.json' with { type: 'json' }
import {
  BusinessType,
  businessTypes,
  callScripts,
  CallScripts,
  defaultOrganizations,
  OrganizationFixture,
} from './fixtures.js'

// The package's own fixtures are not parsed at import (see `shipped`): this is
// where they are checked, as the world uses them.
const shippedFixtures = [
  ['fixtures/organizations.json', z.array(OrganizationFixture), organizationsJson, defaultOrganizations],
  ['fixtures/call-scripts.json', CallScripts, callScriptsJson, callScripts],
  [
    'fixtures/business-types/dental-clinic.json',
    BusinessType,
    dentalClinicJson,
    businessTypes.get(dentalClinicJson.id),
  ],
  [
    'fixtures/business-types/plumbing-hvac.json',
    BusinessType,
    plumbingHvacJson,
    businessTypes.get(plumbingHvacJson.id),
  ],
  [
    'fixtures/business-types/veterinary-clinic.json',
    BusinessType,
    veterinaryClinicJson,
    businessTypes.get(veterinaryClinicJson.id),
  ],
] as const

describe('the fixtures the package ships', () => {
  it.each(shippedFixtures)(
    '%s passes its schema, and parsing leaves it as the world uses it',
    (_file, schema, json, used) => {
      const result = (schema as z.ZodType).safeParse(json)
      expect(result.success, result.success ? '' : z.prettifyError(result.error)).toBe(true)
      expect(result.data).toEqual(used)
      expect(used).toBe(json)
    },
  )

  it('names every business type once', () => {
    expect([...businessTypes.keys()].sort()).toEqual(
      [dentalClinicJson.id, plumbingHvacJson.id, veterinaryClinicJson.id].sort(),
    )
  })

  it('would catch a fixture that does not fit: an unknown service, a string where variants are listed', () => {
    const reason = dentalClinicJson.reasons[0]!
    const unknownService = { ...dentalClinicJson, reasons: [{ ...reason, services: ['Teleportation'] }] }
    expect(z.prettifyError(BusinessType.safeParse(unknownService).error!)).toContain('unknown service "Teleportation"')
    // Parsing would turn a lone string into a list of one, which the world, reading the file as it is, would not.
    const lone = { ...dentalClinicJson, reasons: [{ ...reason, summary: reason.summary[0]! }] }
    expect(BusinessType.parse(lone)).not.toEqual(lone)
  })
})
