import { z } from 'zod'
import { PhoneNumber, Timestamp, Uuid } from './common.js'

export const LeadStatus = z.enum(['new', 'contacted', 'qualified', 'converted', 'lost'])
export type LeadStatus = z.infer<typeof LeadStatus>

export const Urgency = z.enum(['low', 'medium', 'high'])
export type Urgency = z.infer<typeof Urgency>

export const Lead = z.object({
  id: Uuid,
  caller_phone: PhoneNumber,
  caller_name: z.string(),
  caller_email: z.email(),
  status: LeadStatus,
  urgency: Urgency,
  interest: z.string(),
  qualification_reason: z.string(),
  call_summary: z.string(),
  call_log_id: Uuid,
  contact_id: Uuid,
  created_at: Timestamp,
  updated_at: Timestamp,
})
export type Lead = z.infer<typeof Lead>
