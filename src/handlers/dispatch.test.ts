import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineEndpoint } from '../http/Endpoint.js'
import { openSteps, type Plane } from '../http/pipeline.js'
import { joinedBytes } from '../http/RawJson.js'
import type { Reply } from '../http/respond.js'
import { ApiError } from '../schemas/ApiError.js'
import { NoPath, NoQuery } from '../schemas/index.js'
import { createSandbox, type SandboxWithHandlers } from './createSandbox.js'
import { type DispatchContext, dispatch, locate } from './dispatch.js'

const ORIGIN = 'http://sandbox.test'
const ALL = { Authorization: 'Bearer sk_sandbox_all' }

/** A plane of the server's own at `path`, answering its name. */
function ownPlane(name: string, path: string): Plane {
  return {
    name,
    owns: (below) => below === path,
    emptyBody: 'refused',
    needsWorld: false,
    steps: openSteps,
    endpoints: [
      defineEndpoint({
        method: 'GET',
        path,
        requires: 'nothing',
        summary: name,
        pathParams: NoPath,
        query: NoQuery,
        response: z.unknown(),
        answer: () => ({ body: { data: name } }),
      }),
    ],
  }
}

function json(reply: Reply | undefined): any {
  return reply?.body && JSON.parse(new TextDecoder().decode(joinedBytes(reply.body)))
}

describe('locate', () => {
  it.each([
    ['/v1/me', { root: '', below: '/v1/me' }],
    ['/_sandbox/sessions/ci-1', { root: '', below: '/_sandbox/sessions/ci-1' }],
    ['/sessions/ci-1/v1/me', { root: '/sessions/ci-1', below: '/v1/me', name: 'ci-1' }],
    ['/sessions/ci-1', { root: '/sessions/ci-1', below: '', name: 'ci-1' }],
    ['/sessions/a%20b/v1/me', { root: '/sessions/a%20b', below: '/v1/me', name: 'a%20b' }],
    ['/sessionsx/v1/me', { root: '', below: '/sessionsx/v1/me' }],
  ])('%s is %o', (path, location) => {
    expect(locate(path)).toEqual(location)
  })
})

describe('dispatch', () => {
  let sandbox: SandboxWithHandlers
  let context: DispatchContext
  beforeAll(async () => {
    sandbox = createSandbox({ now: '2026-11-20T12:00:00.000Z', calls: 5 })
    await sandbox.ready
    context = {
      sessions: sandbox.sessions,
      planes: [ownPlane('console', '/_sandbox/console/')],
      rootPlanes: [ownPlane('metrics', '/_sandbox/metrics')],
    }
  })
  afterAll(() => {
    sandbox.stop()
    sandbox.sessions.stop()
  })

  const send = (path: string, headers: Record<string, string> = {}, given: DispatchContext = context) =>
    dispatch(sandbox, new Request(ORIGIN + path, { headers }), given)

  it.each(['/', '/docs/', '/v2/calls', '/favicon.ico'])('has no answer for %s, a path of no plane', async (path) => {
    expect(await send(path)).toBeUndefined()
  })

  it('has no answer for a path of a session without sessions', async () => {
    expect(await send('/sessions/ci-1/v1/me', ALL, {})).toBeUndefined()
  })

  it("answers the server's own planes: the console at every root, the metrics at the bare root only", async () => {
    expect(json(await send('/_sandbox/console/')).data).toBe('console')
    expect(json(await send('/sessions/ci-1/_sandbox/console/')).data).toBe('console')
    expect(json(await send('/_sandbox/metrics')).data).toBe('metrics')
    expect((await send('/sessions/ci-1/_sandbox/metrics'))?.status).toBe(404)
  })

  it("answers a session's API from its own world, a Location under its root", async () => {
    const reply = await dispatch(
      sandbox,
      new Request(`${ORIGIN}/sessions/loc/v1/contacts`, {
        method: 'POST',
        headers: { ...ALL, 'Content-Type': 'application/json' },
        body: JSON.stringify({ phone: '+14155550199' }),
      }),
      context,
    )
    expect(reply?.status).toBe(201)
    expect(reply?.headers.get('location')).toBe(`/sessions/loc/v1/contacts/${json(reply).data.id}`)
    expect(sandbox.sessions.has('loc')).toBe(true)
  })

  it('refuses a bad session name with 400 naming the session, making no session', async () => {
    const reply = await send('/sessions/no%20way/v1/me', ALL)
    expect(reply?.status).toBe(400)
    expect(json(reply).error).toMatchObject({ code: 'invalid_parameter', param: 'session' })
    expect(sandbox.sessions.has('no%20way')).toBe(false)
  })

  it("answers 404 for a path of no plane below a session's root, naming the root", async () => {
    const reply = await send('/sessions/ci-2/v2/me', ALL)
    expect(reply?.status).toBe(404)
    expect(json(reply).error.message).toContain("A session's API is under /sessions/ci-2/v1/")
    expect(sandbox.sessions.has('ci-2')).toBe(false)
  })

  it("applies the control plane's guard before anything else, with the peer and the path as sent", async () => {
    const calls: [string | undefined, string | null, string][] = []
    const access = {
      refusal(peer: string | undefined, headers: Headers, path: string) {
        calls.push([peer, headers.get('origin'), path])
        return path.includes('_sandbox') ? new ApiError('origin_not_allowed', 'not from there') : undefined
      },
    }
    const guarded = { ...context, access, peer: '192.0.2.7' }
    const refused = await send('/sessions/no%20way/_sandbox/reset', { Origin: 'http://elsewhere.test' }, guarded)
    expect(refused?.status).toBe(403)
    expect(json(refused).error.code).toBe('origin_not_allowed')
    expect((await send('/v1/me', ALL, guarded))?.status).toBe(200)
    expect(calls).toEqual([
      ['192.0.2.7', 'http://elsewhere.test', '/sessions/no%20way/_sandbox/reset'],
      ['192.0.2.7', null, '/v1/me'],
    ])
  })

  it('answers only below its base URL', async () => {
    const based = createSandbox({ now: '2026-11-20T12:00:00.000Z', calls: 5, baseUrl: `${ORIGIN}/api` })
    try {
      await based.ready
      const below = await dispatch(based, new Request(`${ORIGIN}/api/v1/me`, { headers: ALL }))
      expect(below?.status).toBe(200)
      expect(await dispatch(based, new Request(`${ORIGIN}/v1/me`, { headers: ALL }))).toBeUndefined()
    } finally {
      based.stop()
      based.sessions.stop()
    }
  })
})
