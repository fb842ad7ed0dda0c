import type { Endpoint, RequestContext } from '../http/Endpoint.js'
import { bearerToken } from '../http/bearerToken.js'
import { isControlPath, isSessionsPath } from '../http/paths.js'
import type { Plane, PlaneSteps } from '../http/pipeline.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import { ApiError } from '../schemas/ApiError.js'
import { controlRoutes } from './controlRoutes.js'
import { sessionRoutes } from './sessionRoutes.js'

/**
 * The control plane, under `/_sandbox/`: what a test or a developer does to
 * the sandbox itself. The admin token when the sandbox has one; no API key,
 * no faults, no rate limit, and nothing goes into the journal.
 */
export const CONTROL: Plane = {
  owns: isControlPath,
  endpoints: controlRoutes,
  emptyBody: 'is {}',
  steps: adminSteps,
}

/** The sessions, under `/_sandbox/sessions` at the bare root: made, listed and ended, with the admin token. */
export const SESSIONS: Plane = {
  owns: isSessionsPath,
  endpoints: sessionRoutes,
  emptyBody: 'is {}',
  steps: adminSteps,
}

function adminSteps({ sandbox, request }: RequestContext): PlaneSteps {
  return {
    authenticate(endpoint: Endpoint) {
      if (endpoint.requires === 'admin token') checkAdminToken(sandbox, request.headers.get('authorization'))
      return undefined
    },
  }
}

/** The admin token's check, when the sandbox has one: 401 without it. */
function checkAdminToken(sandbox: Sandbox, authorization: string | null): void {
  const { adminToken } = sandbox.options
  if (adminToken === undefined) return
  const token = bearerToken(authorization)
  if (token !== adminToken) {
    const problem = authorization ? 'carries another token' : 'has no Authorization header'
    throw new ApiError(
      'unauthorized',
      `The control plane wants Authorization: Bearer <admin token> (--admin-token); this request ${problem}.`,
    )
  }
}
