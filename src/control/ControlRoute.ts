import type { z } from 'zod'
import type { Sandbox } from '../sandbox/Sandbox.js'
import type { FieldError } from '../schemas/index.js'

/**
 * One endpoint of the control plane (`/_sandbox/`): no API key, no scope,
 * no journal; the admin token when the sandbox has one.
 */
export interface ControlRoute {
  method: 'GET' | 'POST'
  path: string
  summary: string
  description: string
  query: z.ZodObject
  /** The body's schema for a POST; an empty body is `{}`. */
  body?: z.ZodType
  /** What the schema cannot check (an organization the sandbox has): listed with the schema's problems in one 422. */
  checkBody?(sandbox: Sandbox, fields: Record<string, unknown>): FieldError[]
  /** The status of a successful answer; default 200. */
  status?: number
  /** The successful answer's body, envelope included. */
  response: z.ZodType
  answer(context: { sandbox: Sandbox; query: Record<string, unknown>; body: unknown }): Promise<ControlAnswer> | ControlAnswer
}

export interface ControlAnswer {
  status?: number
  body: Record<string, unknown>
  headers?: Record<string, string>
}
