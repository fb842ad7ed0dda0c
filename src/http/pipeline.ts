import type { z } from 'zod'
import type { ApiKey, Sandbox } from '../sandbox/Sandbox.js'
import { ApiError } from './ApiError.js'
import { finishReading } from './body.js'
import { newRequestId } from './requestId.js'
import type { Route } from './Route.js'
import { routes } from './routes.js'

/**
 * Answers one API request, along the contract's order of checks:
 * path (404) → method (405) → auth (401) → scope (403) → parameters (400)
 * → the endpoint's record (404) and body (415/400/413/422/409) → envelope.
 * Every early return is an error in the same envelope.
 *
 * Returns `undefined` for a request outside the API (not under `/v1/`), so
 * that MSW lets it pass.
 *
 * @example
 * const response = await answer(sandbox, new Request('https://api.example.com/v1/me', {
 *   headers: { Authorization: 'Bearer sk_sandbox_all' },
 * }))
 */
export async function answer(sandbox: Sandbox, request: Request): Promise<Response | undefined> {
  const url = new URL(request.url)
  const path = apiPath(sandbox, url)
  if (path === undefined) return undefined
  const requestId = newRequestId()
  try {
    await sandbox.ready

    // Route: the path must exist, then offer the method.
    const { route, pathValues } = matchRoute(request.method, path)

    // Authenticate the key, then check the endpoint's scope.
    const apiKey = authenticate(sandbox, request.headers.get('authorization'))
    authorize(apiKey, route)

    // Parameters: path values, then the query string.
    const pathParams = parseValues(route.pathParams, pathValues)
    const query = parseQuery(route, url.searchParams)

    // The endpoint: its record or body, then its data.
    const result = await route.answer({ sandbox, apiKey, path: pathParams, query, request })
    return respond(sandbox, requestId, result.status ?? 200, result.body, result.headers)
  } catch (error) {
    const readToTheEnd = await finishReading(request)
    return errorResponse(sandbox, requestId, toApiError(error), readToTheEnd ? {} : { Connection: 'close' })
  }
}

/**
 * An error in the contract's envelope, for answers given outside the
 * pipeline (the standalone server's unknown paths).
 *
 * @example
 * errorResponse(sandbox, newRequestId(), new ApiError('not_found', 'No endpoint at /v2.'))
 */
export function errorResponse(sandbox: Sandbox, requestId: string, error: ApiError, extraHeaders: Record<string, string> = {}): Response {
  const { param, details, headers } = error.init
  const body = {
    error: { type: error.type, code: error.code, message: error.message, ...(param !== undefined && { param }), ...(details && { details }) },
  }
  return respond(sandbox, requestId, error.status, body, { ...headers, ...extraHeaders })
}

function respond(sandbox: Sandbox, requestId: string, status: number, body: Record<string, unknown>, headers: Record<string, string> = {}): Response {
  const meta = { request_id: requestId, timestamp: sandbox.clock.iso() }
  return new Response(JSON.stringify({ ...body, meta }), {
    status,
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestId, 'Cache-Control': 'no-store', ...headers },
  })
}

/**
 * The request's path below the sandbox's base URL, when it is an API path;
 * still percent-encoded. The MSW handler matches with it.
 *
 * @example
 * apiPath(sandbox, new URL('https://api.example.com/v1/calls')) // '/v1/calls'
 */
export function apiPath(sandbox: Sandbox, url: URL): string | undefined {
  const { baseUrl } = sandbox.options
  let path = url.pathname
  if (baseUrl !== undefined) {
    // baseUrl is an origin and a path without its trailing slash (see resolveOptions).
    const href = url.origin + url.pathname
    if (!href.startsWith(`${baseUrl}/`)) return undefined
    path = href.slice(baseUrl.length)
  }
  return path === '/v1' || path.startsWith('/v1/') ? path : undefined
}

/** The route for a path and method: 404 when no route has the path, 405 when none of those has the method. */
function matchRoute(method: string, path: string): { route: Route; pathValues: Record<string, string> } {
  const segments = path.split('/')
  const matches = routes.flatMap((route) => {
    const pathValues = matchPath(route.path, segments)
    return pathValues ? [{ route, pathValues }] : []
  })
  if (matches.length === 0) {
    const endpoints = routes.map((route) => `${route.method} ${route.path}`).join(', ')
    throw new ApiError('not_found', `No endpoint at ${path}. The endpoints are: ${endpoints}.`)
  }
  const match = matches.find(({ route }) => route.method === method)
  if (!match) {
    const allowed = matches.map(({ route }) => route.method).join(', ')
    throw new ApiError('method_not_allowed', `${path} does not take ${method}; it takes ${allowed}.`, { headers: { Allow: allowed } })
  }
  return match
}

function matchPath(pattern: string, segments: string[]): Record<string, string> | undefined {
  const parts = pattern.split('/')
  if (parts.length !== segments.length) return undefined
  const values: Record<string, string> = {}
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!
    const segment = segments[i]!
    if (part.startsWith(':')) {
      if (segment === '') return undefined
      values[part.slice(1)] = safeDecode(segment)
    } else if (part !== segment) {
      return undefined
    }
  }
  return values
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

const BEARER = /^Bearer +([^\s]+) *$/i

function authenticate(sandbox: Sandbox, authorization: string | null): ApiKey {
  const hint = () => `Send Authorization: Bearer <key>, with a sandbox key such as ${sandbox.apiKeys[0]?.key ?? 'sk_sandbox_all'}.`
  if (authorization === null || authorization.trim() === '') throw unauthorized(`No Authorization header. ${hint()}`)
  const token = BEARER.exec(authorization)?.[1]
  if (token === undefined) throw unauthorized(`The Authorization header is not "Bearer <key>". ${hint()}`)
  const apiKey = sandbox.apiKey(token)
  if (!apiKey) throw unauthorized(`Unknown API key. The sandbox keys are: ${sandbox.apiKeys.map(({ key }) => key).join(', ')}.`)
  return apiKey
}

function unauthorized(message: string): ApiError {
  return new ApiError('unauthorized', message, { headers: { 'WWW-Authenticate': 'Bearer' } })
}

function authorize(apiKey: ApiKey, route: Route): void {
  if (route.scope === null || apiKey.scopes.includes(route.scope)) return
  throw new ApiError(
    'insufficient_scope',
    `This key lacks the ${route.scope} scope, which ${route.method} ${route.path} needs. Its scopes: ${apiKey.scopes.join(', ') || 'none'}.`,
    { details: { required_scope: route.scope, key_scopes: [...apiKey.scopes] } },
  )
}

/**
 * Query parameters: an unknown name, then a repeated one, then each value in
 * the order the endpoint declares them.
 */
function parseQuery(route: Route, searchParams: URLSearchParams): Record<string, unknown> {
  const names = Object.keys(route.query.shape)
  const counts = new Map<string, number>()
  for (const [name] of searchParams) {
    if (!names.includes(name)) {
      const takes = names.length > 0 ? `it takes ${names.join(', ')}` : 'it takes none'
      throw new ApiError('unknown_parameter', `${name || '(empty name)'} is not a parameter of ${route.method} ${route.path}; ${takes}.`, { param: name })
    }
    counts.set(name, (counts.get(name) ?? 0) + 1)
  }
  for (const [name, count] of counts) {
    if (count > 1) throw new ApiError('invalid_parameter', `${name} is given ${count} times; give it once.`, { param: name })
  }
  return parseValues(route.query, Object.fromEntries(searchParams))
}

/** Values of present parameters, each parsed by its own schema; the first bad one is a 400 naming it. */
function parseValues(schema: z.ZodObject, raw: Record<string, string>): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  for (const [name, parameter] of Object.entries(schema.shape)) {
    if (raw[name] === undefined) continue
    const result = (parameter as z.ZodType).safeParse(raw[name])
    if (!result.success) {
      throw new ApiError('invalid_parameter', result.error.issues[0]?.message ?? `${name} is invalid.`, { param: name })
    }
    values[name] = result.data
  }
  return values
}

function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error
  console.error('[call-sandbox] unexpected error while answering a request:', error)
  return unexpected(error)
}

/**
 * 500 `internal_error`, for a failure of the sandbox itself.
 *
 * @example
 * errorResponse(sandbox, newRequestId(), unexpected(error))
 */
export function unexpected(error: unknown): ApiError {
  const reason = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '')
  return new ApiError('internal_error', `The sandbox failed unexpectedly: ${reason}.`)
}

/**
 * The answer to a method that never reaches the handlers (fetch cannot carry
 * TRACE, TRACK or CONNECT): 404 for a path the API does not have, else 405.
 */
export function methodOutsideFetch(sandbox: Sandbox, method: string, path: string): Response {
  try {
    matchRoute(method, path)
  } catch (error) {
    return errorResponse(sandbox, newRequestId(), toApiError(error))
  }
  // No route takes these methods, so the route check always throws above.
  throw new Error(`A route takes ${method}, which fetch cannot carry.`)
}
