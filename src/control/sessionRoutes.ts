import { z } from 'zod'
import { defineEndpoint, type Endpoint, type RequestContext } from '../http/Endpoint.js'
import { SESSION_PREFIX, SESSIONS_PATH } from '../http/paths.js'
import { ApiError } from '../schemas/ApiError.js'
import {
  CreateSessionRequest,
  NoPath,
  NoQuery,
  RecordEnvelope,
  SESSION_NAME_MESSAGE,
  SESSION_NAME_PATTERN,
  SessionInfo,
} from '../schemas/index.js'
import { DEFAULT_SESSION, type Sessions } from '../sessions/Sessions.js'

const SessionPath = z.object({
  session: z.string().regex(SESSION_NAME_PATTERN, { error: `session ${SESSION_NAME_MESSAGE}.` }),
})

/** The sessions of the server, under `/_sandbox/sessions` (with the admin token when the server has one). */
export const sessionRoutes: readonly Endpoint[] = [
  defineEndpoint({
    method: 'POST',
    path: SESSIONS_PATH,
    requires: 'admin token',
    summary: 'Create a session',
    description:
      'A session of its own, at `/sessions/{name}`: a complete API root (`/v1/`, `/_sandbox/`, `/openapi.json`) over a world no other session sees. A session is also made by its first request; this one can differ from the server in `seed`, `now`, `scenario` and `calls`, and in its settings `latency`, `error_rate` and `rate_limit` (as the flags take them; `null`: none; absent: inherited from the server). Without a name, one is made up. Past the session limit (`--session-limit`), 503 `session_limit_reached`.',
    pathParams: NoPath,
    query: NoQuery,
    body: CreateSessionRequest,
    status: 201,
    errors: [409, 503],
    response: RecordEnvelope(SessionInfo.extend({ url: z.string() })),
    answer: async (input) => {
      const { name, ...options } = input.body
      const session = await sessionsOf(input).create(name, options)
      const url = `${SESSION_PREFIX}/${session.name}`
      return { status: 201, body: { data: { ...session, url } }, headers: { Location: url } }
    },
  }),
  defineEndpoint({
    method: 'GET',
    path: SESSIONS_PATH,
    requires: 'admin token',
    summary: 'List the sessions',
    description:
      'Every session: the default one (the bare root), then the least recently used first, each with when it was made and last used, its writes and requests, whether its world is in memory or evicted (unloaded, kept as its seed, writes, journal and usage), and when it expires unless used again (`--session-ttl`).',
    pathParams: NoPath,
    query: NoQuery,
    response: RecordEnvelope(z.array(SessionInfo)),
    answer: (input) => ({ body: { data: sessionsOf(input).list() } }),
  }),
  defineEndpoint({
    method: 'DELETE',
    path: `${SESSIONS_PATH}/:session`,
    requires: 'admin token',
    summary: 'End a session',
    description:
      'The session and everything in it are gone; a later request to its name makes a fresh one. The default session is reset, not ended.',
    pathParams: SessionPath,
    query: NoQuery,
    response: RecordEnvelope(SessionInfo),
    answer: async (input) => {
      const name = input.params.session
      if (name === DEFAULT_SESSION) {
        throw new ApiError(
          'invalid_parameter',
          'The default session cannot be ended: reset it (POST /_sandbox/reset).',
          { param: 'session' },
        )
      }
      const ended = await sessionsOf(input).delete(name)
      if (!ended) throw new ApiError('not_found', `No session is named ${name}.`, { param: 'session' })
      return { body: { data: ended } }
    },
  }),
]

/** The sessions the plane runs over: every request to it comes with them (see `reply`). */
function sessionsOf({ sessions }: RequestContext): Sessions {
  if (!sessions) throw new Error('The sessions plane was run without sessions.')
  return sessions
}
