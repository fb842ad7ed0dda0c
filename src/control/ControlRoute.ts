import type { z } from 'zod'
import type { UpstreamProxy } from '../proxy/UpstreamProxy.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import type { FieldError } from '../schemas/index.js'

/**
 * One endpoint of the control plane (`/_sandbox/`): no API key, no scope,
 * no journal; the admin token when the sandbox has one.
 */
export interface ControlRoute<Query extends z.ZodObject = z.ZodObject, Body extends z.ZodType = z.ZodType> {
  method: 'GET' | 'POST'
  path: string
  summary: string
  description: string
  query: Query
  /** The body's schema for a POST; an empty body is `{}`. */
  body?: Body
  /** What the schema cannot check (an organization the sandbox has): listed with the schema's problems in one 422. */
  checkBody?(sandbox: Sandbox, fields: Record<string, unknown>): FieldError[]
  /** The status of a successful answer; default 200. */
  status?: number
  /** The successful answer's body, envelope included. */
  response: z.ZodType
  /** `proxy`: the proxy in front of the API at this root, in proxy mode. */
  answer(context: {
    sandbox: Sandbox
    query: z.infer<Query>
    body: z.infer<Body>
    proxy?: UpstreamProxy
  }): Promise<ControlAnswer> | ControlAnswer
}

export interface ControlAnswer {
  status?: number
  body: Record<string, unknown>
  headers?: Record<string, string>
}

/** Declares a control route with its query's and body's types inferred from its schemas. */
export function defineControlRoute<Query extends z.ZodObject, Body extends z.ZodType = z.ZodUndefined>(
  route: ControlRoute<Query, Body>,
): ControlRoute {
  return route as unknown as ControlRoute
}
