import { z } from 'zod'
import { Uuid } from './common.js'
import { Scope } from './registry.js'

/** `GET /v1/me`: the organization that owns the key, and the key's scopes. */
export const Organization = z.object({
  organization_id: Uuid,
  organization_name: z.string(),
  plan: z.string(),
  scopes: z.array(Scope),
})
export type Organization = z.infer<typeof Organization>
