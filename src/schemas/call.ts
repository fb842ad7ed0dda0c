import { z } from 'zod'
import { HttpUrl, PhoneNumber, Timestamp, Uuid } from './common.js'

export const CallStatus = z.enum(['completed', 'failed', 'blocked', 'in-progress', 'forwarding'])
export type CallStatus = z.infer<typeof CallStatus>

/** Calls still on the line: no `ended_at`, `duration_seconds` counts up. */
export const LIVE_CALL_STATUSES: readonly CallStatus[] = ['in-progress', 'forwarding']

export const TransferStatus = z.enum(['initiated', 'completed', 'failed'])
export type TransferStatus = z.infer<typeof TransferStatus>

export const Message = z.object({
  role: z.enum(['assistant', 'caller']),
  content: z.string(),
  timestamp: Timestamp,
})
export type Message = z.infer<typeof Message>

/** A call as `GET /v1/calls` lists it. */
export const Call = z.object({
  id: Uuid,
  caller_phone: PhoneNumber,
  caller_name: z.string(),
  status: CallStatus,
  duration_seconds: z.int().nonnegative(),
  summary: z.string(),
  transcript: z.string(),
  recording_url: HttpUrl,
  transfer_status: TransferStatus.nullable(),
  started_at: Timestamp,
  ended_at: Timestamp.nullable(),
  assistant_id: Uuid,
  contact_id: Uuid,
  created_at: Timestamp,
})
export type Call = z.infer<typeof Call>

/** A call as `GET /v1/calls/:call_id` returns it: with the conversation. */
export const CallWithMessages = Call.extend({ messages: z.array(Message) })
export type CallWithMessages = z.infer<typeof CallWithMessages>
