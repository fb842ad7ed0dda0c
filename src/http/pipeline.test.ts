import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { ApiKey } from '../sandbox/KeyRing.js'
import { Sandbox } from '../sandbox/Sandbox.js'
import { ApiError } from '../schemas/ApiError.js'
import { NoPath, NoQuery } from '../schemas/index.js'
import { type Answered, defineEndpoint, type Endpoint, type RequestContext } from './Endpoint.js'
import { type Plane, type PlaneSteps, runEndpoint } from './pipeline.js'
import { joinedBytes } from './RawJson.js'
import { newRequestId } from './requestId.js'

const NOW = '2026-11-20T12:00:00.000Z'

/** A plane whose steps write down the order they run in, and throw where a test asks them to. */
function recordingPlane(log: string[], failAt?: keyof PlaneSteps): Plane {
  const step = (name: keyof PlaneSteps) => {
    log.push(name)
    if (failAt === name) throw new ApiError('rate_limited', `stopped at ${name}`)
  }
  const endpoints: readonly Endpoint[] = [
    defineEndpoint({
      method: 'GET',
      path: '/things/:id',
      requires: 'nothing',
      summary: 'A thing',
      pathParams: z.object({ id: z.string().regex(/^\d+$/) }),
      query: z.object({ size: z.coerce.number().int().optional() }),
      response: z.unknown(),
      answer: ({ params, query }) => {
        log.push('answer')
        return { body: { data: { id: params.id, size: query.size ?? null } } }
      },
    }),
    defineEndpoint({
      method: 'POST',
      path: '/things',
      requires: 'nothing',
      summary: 'Make a thing',
      pathParams: NoPath,
      query: NoQuery,
      body: z.object({ name: z.string() }).strict(),
      status: 201,
      response: z.unknown(),
      answer: ({ body }) => ({ body: { data: body } }),
    }),
    defineEndpoint({
      method: 'GET',
      path: '/text',
      requires: 'nothing',
      summary: 'Plain text',
      pathParams: NoPath,
      query: NoQuery,
      response: z.string(),
      answer: () => ({ body: {}, text: 'hello', headers: { 'Content-Type': 'text/plain' } }),
    }),
  ]
  return {
    name: 'test',
    owns: (path) => path.startsWith('/things') || path === '/text',
    endpoints,
    emptyBody: 'refused',
    steps: () => ({
      beforeRoute: async () => step('beforeRoute'),
      authenticate: () => {
        step('authenticate')
        return undefined
      },
      admit: async () => step('admit'),
      authorize: () => step('authorize'),
      finish: (reply, endpoint) => log.push(`finish ${reply.status} ${endpoint?.path ?? '-'}`),
    }),
  }
}

describe('runEndpoint', () => {
  let sandbox: Sandbox
  beforeAll(async () => {
    sandbox = new Sandbox({ now: NOW, calls: 5 })
    await sandbox.ready
  })
  afterAll(() => sandbox.stop())

  function contextOf(method: string, path: string, init: RequestInit = {}, observe?: (a: Answered) => void) {
    const url = new URL(`http://sandbox.test${path}`)
    const context: RequestContext = {
      sandbox,
      request: new Request(url, { method, ...init }),
      url,
      path: url.pathname,
      root: '',
      requestId: newRequestId(),
      started: performance.now(),
      observe,
    }
    return context
  }

  async function run(method: string, path: string, init: RequestInit = {}, failAt?: keyof PlaneSteps) {
    const log: string[] = []
    const reply = await runEndpoint(recordingPlane(log, failAt), contextOf(method, path, init))
    const text = reply.body === null ? '' : new TextDecoder().decode(joinedBytes(reply.body))
    return { log, reply, text, json: reply.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text }
  }

  it("runs the plane's steps in the contract's order, then the endpoint, then finish", async () => {
    const { log, reply, json } = await run('GET', '/things/7?size=3')
    expect(log).toEqual(['beforeRoute', 'authenticate', 'admit', 'authorize', 'answer', 'finish 200 /things/:id'])
    expect(reply.status).toBe(200)
    expect(json.data).toEqual({ id: '7', size: 3 })
    expect(json.meta).toEqual({ request_id: reply.headers.get('x-request-id'), timestamp: NOW })
  })

  it.each([
    ['a path no endpoint has (404), before anyone is authenticated', 'GET', '/thingz', 404, ['beforeRoute']],
    ['a method the path does not take (405)', 'DELETE', '/things/7', 405, ['beforeRoute']],
    [
      'a path value its schema refuses (400), after the caller is checked',
      'GET',
      '/things/x',
      400,
      ['beforeRoute', 'authenticate', 'admit', 'authorize'],
    ],
    [
      'a query value its schema refuses (400)',
      'GET',
      '/things/7?size=big',
      400,
      ['beforeRoute', 'authenticate', 'admit', 'authorize'],
    ],
  ])('stops at %s, and still finishes', async (_what, method, path, status, steps) => {
    const { log, reply, json } = await run(method, path)
    expect(reply.status).toBe(status)
    expect(log).toEqual([...steps, `finish ${status} ${status === 400 ? '/things/:id' : '-'}`])
    expect(json.error).toMatchObject({ type: 'invalid_request_error' })
    expect(json.meta.request_id).toBe(reply.headers.get('x-request-id'))
  })

  it.each(['beforeRoute', 'authenticate', 'admit', 'authorize'] as const)(
    'answers the error a step throws (%s) in the envelope, running no later step',
    async (failAt) => {
      const order = ['beforeRoute', 'authenticate', 'admit', 'authorize']
      const { log, reply, json } = await run('GET', '/things/7', {}, failAt)
      expect(reply.status).toBe(429)
      expect(json.error).toEqual({ type: 'rate_limit_error', code: 'rate_limited', message: `stopped at ${failAt}` })
      expect(log.slice(0, -1)).toEqual(order.slice(0, order.indexOf(failAt) + 1))
      expect(log.at(-1)).toMatch(/^finish 429/)
    },
  )

  it.each([
    ['no Content-Type', { body: '{"name":"a"}' }, 415],
    ['no JSON', { body: '{', headers: { 'Content-Type': 'application/json' } }, 400],
    ['an empty body, on a plane that refuses one', { headers: { 'Content-Type': 'application/json' } }, 400],
    [
      'a field the schema does not take',
      { body: '{"name":"a","x":1}', headers: { 'Content-Type': 'application/json' } },
      422,
    ],
    ['a good body', { body: '{"name":"a"}', headers: { 'Content-Type': 'application/json' } }, 201],
  ])('reads the body: %s is %i', async (_what, init, status) => {
    const { reply } = await run('POST', '/things', init)
    expect(reply.status).toBe(status)
  })

  it('sends a text outcome as it is, with its own Content-Type and no envelope', async () => {
    const { reply, text } = await run('GET', '/text')
    expect(reply.status).toBe(200)
    expect(reply.headers.get('content-type')).toBe('text/plain')
    expect(text).toBe('hello')
  })

  it('tells the observer of every answer: plane, endpoint, session, status', async () => {
    const seen: Answered[] = []
    const log: string[] = []
    await runEndpoint(
      recordingPlane(log),
      contextOf('GET', '/things/7', {}, (answered) => seen.push(answered)),
    )
    await runEndpoint(
      recordingPlane(log),
      contextOf('GET', '/thingz', {}, (answered) => seen.push(answered)),
    )
    expect(seen.map(({ seconds, ...rest }) => rest)).toEqual([
      { plane: 'test', endpoint: 'GET /things/:id', session: 'default', status: 200 },
      { plane: 'test', endpoint: undefined, session: 'default', status: 404 },
    ])
    expect(seen.every(({ seconds }) => seconds >= 0)).toBe(true)
  })

  it('gives the endpoint the key the plane authenticated', async () => {
    const key = { key: 'sk_test' } as ApiKey
    let given: ApiKey | undefined
    const plane: Plane = {
      ...recordingPlane([]),
      endpoints: [
        defineEndpoint({
          method: 'GET',
          path: '/things/:id',
          requires: { scope: null },
          summary: 'A thing',
          pathParams: z.object({ id: z.string() }),
          query: NoQuery,
          response: z.unknown(),
          answer: ({ apiKey }) => {
            given = apiKey
            return { body: {} }
          },
        }),
      ],
      steps: () => ({ authenticate: () => key }),
    }
    expect((await runEndpoint(plane, contextOf('GET', '/things/1'))).status).toBe(200)
    expect(given).toBe(key)
  })
})
