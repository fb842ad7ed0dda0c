import { z } from 'zod'
import { defineEndpoint, type Endpoint, type RequestContext } from '../http/Endpoint.js'
import { NoPath, NoQuery, RecordEnvelope } from '../schemas/index.js'
import { bearerToken } from '../http/bearerToken.js'
import { isControlPath, isSessionsPath, LIVENESS_PATH } from '../http/paths.js'
import { openSteps, type Plane, type PlaneSteps } from '../http/pipeline.js'
import { sameSecret } from '../sandbox/credentials.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import { ApiError } from '../schemas/ApiError.js'
import { controlRoutes } from './controlRoutes.js'
import { faultRoutes } from './faultRoutes.js'
import { sessionRoutes } from './sessionRoutes.js'

/**
 * `GET /_sandbox/live`: the server is alive. It answers without the world: no waiting for the seed, no store to
 * reach, no admin token, so a probe tells a server that is up from one that is ready (`/_sandbox/ready`).
 */
export const livenessRoutes: readonly Endpoint[] = [
  defineEndpoint({
    method: 'GET',
    path: LIVENESS_PATH,
    requires: 'nothing',
    summary: 'Whether the server is alive',
    description:
      'For a liveness probe: 200 whenever the process responds at all, its world seeded or not, its store reachable or not. No admin token.',
    pathParams: NoPath,
    query: NoQuery,
    response: RecordEnvelope(z.object({ alive: z.literal(true), uptime_seconds: z.number() })),
    answer: () => ({
      body: { data: { alive: true, uptime_seconds: Math.round(process.uptime?.() ?? 0) } },
    }),
  }),
]

export const LIVENESS: Plane = {
  name: 'liveness',
  owns: (path) => path === LIVENESS_PATH,
  endpoints: livenessRoutes,
  emptyBody: 'refused',
  needsWorld: false,
  steps: openSteps,
}

/** The sessions, under `/_sandbox/sessions` at the bare root: made, listed and ended, with the admin token. */
export const SESSIONS: Plane = {
  name: 'sessions',
  owns: isSessionsPath,
  endpoints: sessionRoutes,
  emptyBody: 'is {}',
  steps: adminSteps,
}

/** The steps of a plane behind the admin token (when the sandbox has one): the control plane's, the metrics'. */
export function adminSteps({ sandbox, request }: RequestContext): PlaneSteps {
  return {
    authenticate(endpoint: Endpoint) {
      if (endpoint.requires === 'admin token') checkAdminToken(sandbox, request.headers.get('authorization'))
      return undefined
    },
  }
}

/** The admin token's check, when the sandbox has one: 401 without it. Compared in constant time (`sameSecret`). */
function checkAdminToken(sandbox: Sandbox, authorization: string | null): void {
  if (sandbox.options.adminToken === undefined) return
  if (!isAdminToken(sandbox, bearerToken(authorization))) {
    const problem = authorization ? 'carries another token' : 'has no Authorization header'
    throw new ApiError(
      'unauthorized',
      `The control plane wants Authorization: Bearer <admin token> (--admin-token); this request ${problem}.`,
    )
  }
}

/** Whether a bearer token is the sandbox's admin token (false when it has none): compared in constant time. */
export function isAdminToken(sandbox: Sandbox, token: string | null): boolean {
  const { adminToken } = sandbox.options
  return adminToken !== undefined && token !== null && sameSecret(token, adminToken)
}

/** Every endpoint under `/_sandbox/` (the sessions' at the bare root only): what its 404 lists, and OpenAPI shows. */
export const everyControlEndpoint: readonly Endpoint[] = [
  ...livenessRoutes,
  ...controlRoutes,
  ...faultRoutes,
  ...sessionRoutes,
]

/**
 * The control plane, under `/_sandbox/`: what a test or a developer does to
 * the sandbox itself. The admin token when the sandbox has one; no API key,
 * no faults, no rate limit, and nothing goes into the journal.
 */
export const CONTROL: Plane = {
  name: 'control',
  owns: isControlPath,
  endpoints: [...controlRoutes, ...faultRoutes],
  listed: everyControlEndpoint,
  emptyBody: 'is {}',
  steps: adminSteps,
}
