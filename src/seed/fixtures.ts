import { z } from 'zod'
import { Scope, Uuid } from '../schemas/index.js'
import organizationsJson from '../../fixtures/organizations.json' with { type: 'json' }
import callScriptsJson from '../../fixtures/call-scripts.json' with { type: 'json' }
import dentalClinicJson from '../../fixtures/business-types/dental-clinic.json' with { type: 'json' }
import plumbingHvacJson from '../../fixtures/business-types/plumbing-hvac.json' with { type: 'json' }
import veterinaryClinicJson from '../../fixtures/business-types/veterinary-clinic.json' with { type: 'json' }

/*
 * The shapes of the hand-written data in `fixtures/`. Everything the seed
 * says in words comes from there; these schemas check it (and a user's own
 * organizations) before a world is built from it.
 */

const PLACEHOLDERS = [
  'business',
  'assistant',
  'caller_name',
  'caller_first',
  'service',
  'appointment_day',
  'appointment_time',
]

const Template = z
  .string()
  .regex(/^[^\r\n]*$/, 'must be one line')
  .refine((text) => [...text.matchAll(/\{(\w+)\}/g)].every(([, name]) => PLACEHOLDERS.includes(name!)), {
    error: `uses a placeholder other than {${PLACEHOLDERS.join('}, {')}}`,
  })

export const ScriptLine = z.tuple([z.enum(['assistant', 'caller']), Template])
export type ScriptLine = z.infer<typeof ScriptLine>
const Script = z.array(ScriptLine).min(1)
/** One text, or several ways of saying it, one of which is picked per use. */
const Variants = z.union([Template.transform((text) => [text]), z.array(Template).min(1)])

export const ApiKeyFixture = z.object({
  key: z.string().regex(/^[A-Za-z0-9_.-]{8,200}$/, 'must be 8 to 200 letters, digits, _ . or -'),
  scopes: z.array(Scope),
})
export type ApiKeyFixture = z.infer<typeof ApiKeyFixture>

export const OrganizationFixture = z.object({
  organization_id: Uuid,
  organization_name: z.string().min(1),
  plan: z.string().min(1),
  /** `id` of a business type in `fixtures/business-types/`. */
  business_type: z.string(),
  /** Local time of the business, as a fixed offset from UTC. */
  utc_offset_minutes: z.int().min(-720).max(840),
  /** Area codes its callers' numbers (+1 NANP) are drawn from. */
  area_codes: z.array(z.string().regex(/^[2-9]\d\d$/)).min(1),
  assistants: z.array(z.object({ assistant_id: Uuid, name: z.string().min(1) })).min(1),
  /** How many calls the seed gives it over the 90 days before `now`. */
  calls: z.int().min(0).max(1_000_000),
  /** How many contacts an API client created, besides the callers. */
  api_contacts: z.int().min(0).max(100_000),
  keys: z.array(ApiKeyFixture),
})
export type OrganizationFixture = z.infer<typeof OrganizationFixture>

export const BusinessType = z
  .object({
    id: z.string(),
    name: z.string(),
    hours: z.object({
      open: z.int().min(0).max(23),
      close: z.int().min(1).max(24),
      days: z.array(z.int().min(1).max(7)).min(1),
    }),
    services: z.array(z.object({ name: z.string(), minutes: z.int().min(15).max(480) })).min(1),
    handoff: Script,
    reasons: z
      .array(
        z.object({
          id: z.string(),
          label: z.string(),
          weight: z.number().positive(),
          creates: z.array(z.enum(['lead', 'appointment'])),
          services: z.array(z.string()).min(1),
          urgency: z.array(z.enum(['low', 'medium', 'high'])).min(1),
          interest: Variants,
          qualification_reasons: z.array(Template).min(1),
          script: Script,
          summary: Variants,
        }),
      )
      .min(1),
  })
  .superRefine((type, ctx) => {
    const services = new Set(type.services.map((service) => service.name))
    for (const reason of type.reasons) {
      for (const service of reason.services) {
        if (!services.has(service))
          ctx.addIssue({ code: 'custom', message: `reason ${reason.id} names unknown service "${service}"` })
      }
    }
  })
export type BusinessType = z.infer<typeof BusinessType>
export type Reason = BusinessType['reasons'][number]

export const CallScripts = z.object({
  blocked: z.array(z.object({ caller_name: z.string(), script: Script, summary: Template })).min(1),
  failed: z.array(z.object({ script: Script, summary: Template })).min(1),
  transfer_completed: z.array(Script).min(1),
  transfer_failed: z.array(Script).min(1),
})
export type CallScripts = z.infer<typeof CallScripts>

/**
 * One of the package's own fixtures, typed as its schema gives it.
 *
 * @note Not parsed at import: they ship with the package, unchanged, and
 * `src/seed/fixtures.test.ts` checks each against its schema and that parsing
 * leaves it as it is. Parsing them at import cost about 15 ms of every
 * process's start, cold. A user's organizations are parsed (`resolveOptions`).
 */
function shipped<T extends z.ZodType>(_schema: T, data: unknown): z.output<T> {
  return data as z.output<T>
}

export const defaultOrganizations = shipped(z.array(OrganizationFixture), organizationsJson)

export const businessTypes: ReadonlyMap<string, BusinessType> = new Map(
  [dentalClinicJson, plumbingHvacJson, veterinaryClinicJson].map((json) => {
    const type = shipped(BusinessType, json)
    return [type.id, type]
  }),
)

export const callScripts = shipped(CallScripts, callScriptsJson)
