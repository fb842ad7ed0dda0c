import type { z } from 'zod'
import type { ApiKey, Sandbox } from '../sandbox/Sandbox.js'
import type { Scope } from '../schemas/index.js'

export type Method = 'GET' | 'POST'

/** What a route's `answer` gets: everything the pipeline has checked. */
export interface RouteContext<Query, Path> {
  sandbox: Sandbox
  apiKey: ApiKey
  query: Query
  path: Path
  request: Request
}

/** A successful answer; the pipeline adds `meta` and the common headers. */
export interface RouteAnswer {
  status?: number
  body: Record<string, unknown>
  headers?: Record<string, string>
}

/**
 * One endpoint: only what is particular to it. Authentication, the scope
 * check, parameter parsing and the envelope are the pipeline's.
 */
export interface Route<Query extends z.ZodObject = z.ZodObject, Path extends z.ZodObject = z.ZodObject> {
  method: Method
  /** Like `/v1/calls/:call_id`. */
  path: string
  /** The scope a key needs; `null`: any valid key. */
  scope: Scope | null
  /** What the endpoint does, in a few words (the 404 list of endpoints, the OpenAPI summary). */
  summary: string
  pathParams: Path
  query: Query
  /** The request body's schema, for a route that takes one (the OpenAPI document; the route parses it). */
  body?: z.ZodType
  /** The status of a successful answer; default 200. */
  status?: number
  /** The successful answer's body, envelope included (the OpenAPI document; tests hold answers to it). */
  response: z.ZodType
  answer(context: RouteContext<z.infer<Query>, z.infer<Path>>): RouteAnswer | Promise<RouteAnswer>
}

/** Declares a route with its parameters' types inferred from its schemas. */
export function defineRoute<Query extends z.ZodObject, Path extends z.ZodObject>(route: Route<Query, Path>): Route {
  return route as unknown as Route
}
