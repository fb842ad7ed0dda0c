import { z } from 'zod'
import { readJsonObject } from '../http/body.js'
import { matchRoute } from '../http/matchRoute.js'
import { parseQuery, parseValues } from '../http/parameters.js'
import { successStatusOf } from '../http/prefer.js'
import { newRequestId } from '../http/requestId.js'
import { failedReply, respond, type Reply } from '../http/respond.js'
import { ApiError } from '../schemas/ApiError.js'
import {
  CreateSessionRequest,
  RecordEnvelope,
  SESSION_NAME_MESSAGE,
  SESSION_NAME_PATTERN,
  SessionInfo,
} from '../schemas/index.js'
import { parseBody } from '../schemas/parseBody.js'
import { DEFAULT_SESSION, SessionExistsError, type Sessions } from '../sessions/Sessions.js'
import { checkAdminToken } from './answerControl.js'
import { CONTROL_PREFIX } from './paths.js'

/** Where the sessions are managed, at the root only. */
export const SESSIONS_PATH = `${CONTROL_PREFIX}/sessions`
/** Where a session's API root lives: `/sessions/{name}`. */
export const SESSION_PREFIX = '/sessions'

const SessionPath = z.object({
  session: z.string().regex(SESSION_NAME_PATTERN, { error: `session ${SESSION_NAME_MESSAGE}.` }),
})

/** One endpoint of the sessions: what the OpenAPI document says of it, and how it answers. */
export interface SessionRoute {
  method: 'GET' | 'POST' | 'DELETE'
  path: string
  summary: string
  description: string
  pathParams: z.ZodObject
  query: z.ZodObject
  body?: z.ZodType
  status?: number
  /** Errors of its own beyond the control plane's, for the OpenAPI document. */
  errors?: number[]
  response: z.ZodType
  answer(context: { sessions: Sessions; session?: string; body: unknown }): {
    status?: number
    body: Record<string, unknown>
    headers?: Record<string, string>
  }
}

/** The sessions of the server, under `/_sandbox/sessions` (with the admin token when the server has one). */
export const sessionRoutes: readonly SessionRoute[] = [
  {
    method: 'POST',
    path: SESSIONS_PATH,
    summary: 'Create a session',
    description:
      'A session of its own, at `/sessions/{name}`: a complete API root (`/v1/`, `/_sandbox/`, `/openapi.json`) over a world no other session sees. A session is also made by its first request; this one can differ from the server in `seed`, `now`, `scenario` and `calls`. Without a name, one is made up.',
    pathParams: z.object({}),
    query: z.object({}),
    body: CreateSessionRequest,
    status: 201,
    errors: [409],
    response: RecordEnvelope(SessionInfo.extend({ url: z.string() })),
    answer: ({ sessions, body }) => {
      const { name, ...options } = body as CreateSessionRequest
      try {
        const session = sessions.create(name, options)
        const url = `${SESSION_PREFIX}/${session.name}`
        return { status: 201, body: { data: { ...session, url } }, headers: { Location: url } }
      } catch (error) {
        if (!(error instanceof SessionExistsError)) throw error
        throw new ApiError(
          'session_exists',
          `${error.message} Use it at ${SESSION_PREFIX}/${error.session}/, or pick another name.`,
          {
            details: { session: error.session },
          },
        )
      }
    },
  },
  {
    method: 'GET',
    path: SESSIONS_PATH,
    summary: 'List the sessions',
    description:
      'Every session: the default one (the bare root), then the least recently used first, each with when it was made and last used, its writes and requests, and whether its world is in memory or put away.',
    pathParams: z.object({}),
    query: z.object({}),
    response: RecordEnvelope(z.array(SessionInfo)),
    answer: ({ sessions }) => ({ body: { data: sessions.list() } }),
  },
  {
    method: 'DELETE',
    path: `${SESSIONS_PATH}/:session`,
    summary: 'End a session',
    description:
      'The session and everything in it are gone; a later request to its name makes a fresh one. The default session is reset, not ended.',
    pathParams: SessionPath,
    query: z.object({}),
    response: RecordEnvelope(SessionInfo),
    answer: ({ sessions, session: name }) => {
      if (name === DEFAULT_SESSION) {
        throw new ApiError(
          'invalid_parameter',
          'The default session cannot be ended: reset it (POST /_sandbox/reset).',
          { param: 'session' },
        )
      }
      const ended = sessions.delete(name!)
      if (!ended) throw new ApiError('not_found', `No session is named ${name}.`, { param: 'session' })
      return { body: { data: ended } }
    },
  },
]

/**
 * Answers `/_sandbox/sessions`: route (404/405) → admin token (401) →
 * parameters (400) → body (415/400/413/422) → the route (404/409).
 *
 * @example
 * await answerSessions(sessions, new Request('http://127.0.0.1:4010/_sandbox/sessions'), '/_sandbox/sessions', url)
 */
export async function answerSessions(sessions: Sessions, request: Request, path: string, url: URL): Promise<Reply> {
  const requestId = newRequestId()
  const { base } = sessions
  try {
    const { route, pathValues } = matchRoute(sessionRoutes, request.method, path)
    checkAdminToken(base, request.headers.get('authorization'))
    const { session } = parseValues(route.pathParams, pathValues) as { session?: string }
    parseQuery(route, url.searchParams)
    const body = route.body ? parseBody(route.body, await readJsonObject(request, { optional: true })) : undefined
    const result = route.answer({ sessions, session, body })
    return respond(base, requestId, result.status ?? successStatusOf(route), result.body, result.headers)
  } catch (error) {
    return failedReply(base, requestId, request, error)
  }
}

/**
 * Whether a path is the sessions' own, under `/_sandbox/sessions`.
 *
 * @example
 * isSessionsPath('/_sandbox/sessions/ci-1') // true
 */
export function isSessionsPath(path: string): boolean {
  return path === SESSIONS_PATH || path.startsWith(`${SESSIONS_PATH}/`)
}
