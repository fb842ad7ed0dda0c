import type { z } from 'zod'
import type { ApiKey } from '../sandbox/KeyRing.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import type { DriftReport, FieldError, Scope } from '../schemas/index.js'
import type { Sessions } from '../sessions/Sessions.js'
import type { FetchRequest } from './FetchRequest.js'

export type Method = 'GET' | 'POST' | 'DELETE'

/**
 * Who may call an endpoint: an API key with a scope (`scope: null`: any
 * valid key), the admin token when the sandbox has one, or anyone.
 */
export type Requirement = { scope: Scope | null } | 'admin token' | 'nothing'

/** One request, as every step of the pipeline sees it. */
export interface RequestContext {
  /** The world that answers: the session's, or the server's own. */
  sandbox: Sandbox
  request: FetchRequest
  url: URL
  /** The path below the session's root (below the base URL at the bare root), still percent-encoded. */
  path: string
  /** The session's root path (`/sessions/{name}`), or '' at the bare root. */
  root: string
  requestId: string
  /** `performance.now()` when the request came in. */
  started: number
  /** The sessions, for the endpoints that manage them (at the bare root only). */
  sessions?: Sessions
  /** In proxy mode, the proxy at this root. */
  proxy?: ProxyControls
  /** Told of every answer the pipeline gives (the server's metrics). */
  observe?: Observer
  /**
   * The console reading for itself (`isConsoleRead`): the API neither journals it nor counts it in the usage report,
   * and it meets no fault; nor is an observer told of it.
   */
  consoleRead?: boolean
}

/** What an observer is told of one answer. */
export interface Answered {
  /** The plane: `api`, `control`, `sessions` or `document`. */
  plane: string
  /** The endpoint matched, like `GET /v1/calls/:call_id`; none for a 404 or a 405. */
  endpoint: string | undefined
  /** The session's name: `default` at the bare root. */
  session: string
  status: number
  /** Seconds from the request coming in to its answer. */
  seconds: number
}

export type Observer = (answered: Answered) => void

/** What the control plane asks of the proxy in proxy mode (an `UpstreamProxy`, a floor above this one). */
export interface ProxyControls {
  readonly drift: { report(): DriftReport }
  /** Forgets the drift report, at a reset. */
  clear(): void
}

/**
 * What an endpoint's `answer` gets: the request and its parsed inputs, and the key: always for an API endpoint, none
 * for an endpoint that takes no key.
 */
export type EndpointInput<Path, Query, Body, R extends Requirement> = RequestContext & {
  params: Path
  query: Query
  body: Body
} & (R extends { scope: unknown } ? { apiKey: ApiKey } : { apiKey?: undefined })

/** A successful answer; the pipeline adds `meta` and the headers every answer carries. */
export interface Outcome {
  status?: number
  body: Record<string, unknown>
  headers?: Record<string, string>
  /** The instant the answer is as of, for an endpoint that moved the clock; default the request's instant. */
  asOf?: number
  /** `false`: the body is sent as it is, without `meta` (the OpenAPI document is no envelope). */
  meta?: false
  /** A body that is no JSON (Prometheus's text), sent as it is with the `Content-Type` in `headers`. */
  text?: string
}

/**
 * One endpoint of any plane: only what is particular to it. Matching,
 * authentication, parameters, the body and the envelope are the pipeline's.
 */
export interface Endpoint<
  Path extends z.ZodObject = z.ZodObject,
  Query extends z.ZodObject = z.ZodObject,
  Body extends z.ZodType = z.ZodType,
  R extends Requirement = Requirement,
> {
  method: Method
  /** Like `/v1/calls/:call_id`. */
  path: string
  requires: R
  /** What the endpoint does, in a few words (the 404 list of endpoints, the OpenAPI summary). */
  summary: string
  /** More, for the OpenAPI document. */
  description?: string
  pathParams: Path
  query: Query
  /** The body's schema, for an endpoint that takes one. */
  body?: Body
  /** What the schema cannot check (an organization the sandbox has): listed with the schema's problems in one 422. */
  checkBody?(sandbox: Sandbox, fields: Record<string, unknown>): FieldError[]
  /** The status of a successful answer; default 200. */
  status?: number
  /** Error statuses of its own beyond its plane's, for the OpenAPI document. */
  errors?: number[]
  /** The successful answer's body, envelope included (the OpenAPI document; tests hold answers to it). */
  response: z.ZodType
  answer(input: EndpointInput<z.infer<Path>, z.infer<Query>, z.infer<Body>, R>): Outcome | Promise<Outcome>
}

/** An endpoint of the API, under `/v1/`: it needs a key. */
export type ApiEndpoint = Endpoint<z.ZodObject, z.ZodObject, z.ZodType, { scope: Scope | null }>

/** Declares an endpoint with its inputs' types inferred from its schemas. */
export function defineEndpoint<
  Path extends z.ZodObject,
  Query extends z.ZodObject,
  Body extends z.ZodType = z.ZodUndefined,
  R extends Requirement = Requirement,
>(endpoint: Endpoint<Path, Query, Body, R>): R extends { scope: unknown } ? ApiEndpoint : Endpoint {
  return endpoint as never
}

/**
 * The scope an endpoint needs; `null` for any valid key and for an endpoint that takes no key.
 *
 * @example
 * scopeOf(listCalls) // 'calls:read'
 */
export function scopeOf(endpoint: Pick<Endpoint, 'requires'>): Scope | null {
  return typeof endpoint.requires === 'object' ? endpoint.requires.scope : null
}

/**
 * The status an endpoint answers with when all goes well.
 *
 * @example
 * successStatusOf(createContact) // 201
 */
export function successStatusOf(endpoint: { status?: number }): number {
  return endpoint.status ?? 200
}
