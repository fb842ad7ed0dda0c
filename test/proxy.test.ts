import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { setupServer } from 'msw/node'
import { describe, expect, it } from 'vitest'
import { answer, createSandbox } from '../src/index.js'
import { createApp } from '../src/server/createApp.js'
import { sendingOverHttp } from '../src/server/sendOverHttp.js'
import { call, fakeUpstream, pagesOf, sandboxServer } from './support/proxies.js'
import { NOW, ORG_2 } from './support/transports.js'
import { onUnhandled } from './support/onUnhandled.js'

/*
 * Proxy mode (--proxy): every /v1/ request goes to an upstream and comes
 * back as it was, held to the contract. The upstreams here are a second
 * sandbox, which must come out clean, and fakes of node:http: one that
 * drifts from the contract in named ways, and ones that fail.
 */

const LISTS = ['/v1/calls', '/v1/contacts', '/v1/leads', '/v1/appointments']

/** Everything a request answered that the walk checks, without what differs per request (ids, headers of the hop). */
const comparable = ({ status, body }: { status: number; body: any }) => ({
  status,
  data: body?.data,
  error: body?.error,
  has_more: body?.has_more,
})

async function driftReport(proxyUrl: string) {
  const { status, body } = await call(`${proxyUrl}/_sandbox/drift`, { key: null })
  expect(status).toBe(200)
  return body.data
}

describe('proxy mode, in front of a second sandbox', () => {
  it('sends each /v1/ request on unchanged (method, path, query, Authorization, body) and its answer back unchanged, with X-Sandbox-Contract and its own request id', async () => {
    const upstream = await sandboxServer()
    const proxy = await sandboxServer({ proxy: upstream.url })

    const direct = await call(`${upstream.url}/v1/calls?limit=3&status=completed`)
    const through = await call(`${proxy.url}/v1/calls?limit=3&status=completed`)
    expect(comparable(through)).toEqual(comparable(direct))
    expect(through.body.meta.request_id).toBe(through.headers.get('x-request-id'))
    expect(through.headers.get('x-sandbox-contract')).toBe('ok')
    expect(through.headers.get('x-sandbox-request-id')).toMatch(/^req_/)
    expect(through.headers.get('x-sandbox-request-id')).not.toBe(through.headers.get('x-request-id'))

    // The upstream saw the request as the client sent it: its own journal says so, key and all.
    const seen = upstream.sandbox.journal.entries(1)[0]!
    expect(seen).toMatchObject({
      method: 'GET',
      path: '/v1/calls',
      query: { limit: '3', status: 'completed' },
      key: 'sk_sandbox_all',
      request_id: through.body.meta.request_id,
    })

    // A body goes on as it was sent; the upstream's 201 and Location come back.
    const created = await call(`${proxy.url}/v1/contacts`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"phone":"+14155550123","name":"Dana Whitfield"}',
    })
    expect(created.status).toBe(201)
    expect(created.headers.get('location')).toBe(`/v1/contacts/${created.body.data.id}`)
    expect(created.headers.get('x-sandbox-contract')).toBe('ok')
    expect(upstream.sandbox.db.get('contacts', created.body.data.id)?.name).toBe('Dana Whitfield')
    expect(proxy.sandbox.db.get('contacts', created.body.data.id)).toBeUndefined()
  })

  it('comes out clean over a walk of every endpoint, every key, its errors included: 0 violations', async () => {
    const upstream = await sandboxServer()
    const proxy = await sandboxServer({ proxy: upstream.url })
    const verdicts: string[] = []
    const through = async (path: string, options: Parameters<typeof call>[1] = {}) => {
      const got = await call(proxy.url + path, options)
      verdicts.push(`${options.method ?? 'GET'} ${path} ${got.status} ${got.headers.get('x-sandbox-contract')}`)
      return got
    }

    for (const key of ['sk_sandbox_all', 'sk_sandbox_org2', 'sk_sandbox_readonly']) {
      await through('/v1/me', { key })
      for (const list of LISTS) {
        for (const page of await pagesOf(proxy.url, `${list}?limit=100`, key))
          verdicts.push(`GET ${list} (a page) ${page.status} ${page.headers.get('x-sandbox-contract')}`)
      }
    }
    for (const path of [
      '/v1/calls?status=completed&limit=37',
      '/v1/leads?status=new&urgency=high',
      '/v1/appointments?status=confirmed',
      '/v1/calls?since=2026-11-01T00:00:00Z',
    ]) {
      for (const page of await pagesOf(proxy.url, path))
        verdicts.push(`GET ${path} ${page.status} ${page.headers.get('x-sandbox-contract')}`)
    }
    const { body: calls } = await through('/v1/calls?limit=5')
    for (const { id } of calls.data) await through(`/v1/calls/${id}`)
    const { body: contacts } = await through('/v1/contacts?limit=2')
    await through(`/v1/contacts/${contacts.data[0].id}`)
    await through(`/v1/contacts?phone=${encodeURIComponent(contacts.data[0].phone)}`)
    const json = { 'Content-Type': 'application/json' }
    await through('/v1/contacts', { method: 'POST', headers: json, body: '{"phone":"+14155550199"}' })

    // Errors: each the status the contract gives it, so no violation either.
    const errors: Array<[string, Parameters<typeof call>[1], number]> = [
      ['/v1/calls', { key: null }, 401],
      ['/v1/calls', { key: 'sk_unknown_key' }, 401],
      ['/v1/nothing', {}, 404],
      ['/v1/calls', { method: 'DELETE' }, 405],
      ['/v1/leads', { key: 'sk_sandbox_calls' }, 403],
      ['/v1/calls?limit=500', {}, 400],
      ['/v1/calls?colour=red', {}, 400],
      ['/v1/calls?cursor=not-a-cursor', {}, 400],
      ['/v1/calls/not-a-uuid', {}, 400],
      ['/v1/calls/00000000-0000-4000-8000-000000000000', {}, 404],
      ['/v1/contacts', { method: 'POST', body: '{"phone":"+14155550100"}' }, 415],
      ['/v1/contacts', { method: 'POST', headers: json, body: '{"phone":' }, 400],
      ['/v1/contacts', { method: 'POST', headers: json, body: '{"phone":"12"}' }, 422],
      ['/v1/contacts', { method: 'POST', headers: json, body: '{"phone":"+14155550199"}' }, 409],
    ]
    for (const [path, options, status] of errors) expect((await through(path, options)).status, path).toBe(status)

    expect(verdicts.filter((verdict) => !verdict.endsWith(' ok'))).toEqual([])
    const report = await driftReport(proxy.url)
    expect(report.answers).toBe(verdicts.length)
    expect(report).toMatchObject({ upstream: upstream.url, answers_with_violations: 0, unanswered: 0 })
    expect(report.endpoints.map(({ endpoint }: { endpoint: string }) => endpoint).sort()).toEqual([
      'DELETE (no such endpoint)',
      'GET (no such endpoint)',
      'GET /v1/appointments',
      'GET /v1/calls',
      'GET /v1/calls/:call_id',
      'GET /v1/contacts',
      'GET /v1/contacts/:contact_id',
      'GET /v1/leads',
      'GET /v1/me',
      'POST /v1/contacts',
    ])
    for (const endpoint of report.endpoints) expect(endpoint.rules, endpoint.endpoint).toEqual([])
  })

  it('keeps the control plane, /openapi.json, /docs and the sessions its own: none of them reaches the upstream', async () => {
    const upstream = await sandboxServer()
    const proxy = await sandboxServer({ proxy: upstream.url })
    const before = upstream.sandbox.journal.size
    expect((await call(`${proxy.url}/_sandbox/health`, { key: null })).status).toBe(200)
    expect((await call(`${proxy.url}/_sandbox/calls`, { key: null, method: 'POST' })).status).toBe(201)
    expect((await call(`${proxy.url}/openapi.json`, { key: null })).body.openapi).toBe('3.1.0')
    expect((await fetch(`${proxy.url}/docs/`)).status).toBe(200)
    expect((await call(`${proxy.url}/sessions/mine/v1/me`)).body.data.organization_name).toBe('Harbor Dental Care')
    expect(upstream.sandbox.journal.size).toBe(before)
    expect(upstream.sandbox.health().records.calls).toBe(proxy.sandbox.health().records.calls - 1)
  })

  it("answers a browser on another origin (CORS, the headers it may read) and logs one line a request, as for the sandbox's own answers", async () => {
    const upstream = await sandboxServer()
    const lines: string[] = []
    const proxy = await sandboxServer({ proxy: upstream.url, quiet: false, log: (line) => lines.push(line) })
    const got = await call(`${proxy.url}/v1/me`, { headers: { Origin: 'https://app.example.com' } })
    expect(got.headers.get('access-control-allow-origin')).toBe('*')
    expect(got.headers.get('access-control-expose-headers')?.split(',')).toEqual(
      expect.arrayContaining(['X-Request-Id', 'X-Sandbox-Contract', 'X-Sandbox-Request-Id']),
    )
    const preflight = await fetch(`${proxy.url}/v1/me`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example.com',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'authorization',
      },
    })
    expect(preflight.status).toBe(204)
    await new Promise((resolve) => setImmediate(resolve))
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^GET /v1/me 200 [\\d.]+ ms ${got.headers.get('x-request-id')}$`)),
    )
  })

  it('journals each request with what its answer broke, and its key as shown: a built-in key whole', async () => {
    const upstream = await sandboxServer()
    const proxy = await sandboxServer({ proxy: upstream.url })
    const through = await call(`${proxy.url}/v1/calls?limit=2`)
    const { body } = await call(`${proxy.url}/_sandbox/requests?limit=1`, { key: null })
    expect(body.data[0]).toMatchObject({
      request_id: through.headers.get('x-sandbox-request-id'),
      method: 'GET',
      path: '/v1/calls',
      query: { limit: '2' },
      status: 200,
      key: 'sk_sandbox_all',
      contract: { upstream_request_id: through.headers.get('x-request-id'), violation_count: 0, violations: [] },
    })
  })

  it('starts the drift report afresh on POST /_sandbox/reset; a sandbox without a proxy reports nothing', async () => {
    const upstream = await sandboxServer()
    const proxy = await sandboxServer({ proxy: upstream.url })
    await call(`${proxy.url}/v1/me`)
    expect((await driftReport(proxy.url)).answers).toBe(1)
    await call(`${proxy.url}/_sandbox/reset`, { key: null, method: 'POST' })
    expect((await driftReport(proxy.url)).answers).toBe(0)
    expect(await driftReport(upstream.url)).toEqual({
      upstream: null,
      since: null,
      answers: 0,
      answers_with_violations: 0,
      unanswered: 0,
      endpoints: [],
    })
  })

  it.each([
    ['on its baseUrl', 'https://api.proxied.test'],
    // Its handlers then answer /v1/ on any origin, the upstream's too.
    ['on any origin', undefined],
  ])(
    "works in process too, %s: createSandbox({ proxy }) in msw's setupServer reaches the real upstream, not its own handlers",
    async (_, baseUrl) => {
      const upstream = await sandboxServer()
      const sandbox = createSandbox({ now: NOW, baseUrl, proxy: upstream.url })
      const server = setupServer(...sandbox.handlers)
      server.listen(onUnhandled('error'))
      try {
        const got = await call('https://api.proxied.test/v1/me')
        expect(got.status).toBe(200)
        expect(got.headers.get('x-sandbox-contract')).toBe('ok')
        expect(upstream.sandbox.journal.entries(1)[0]).toMatchObject({
          path: '/v1/me',
          request_id: got.body.meta.request_id,
        })
        expect(sandbox.proxy?.drift.report().answers).toBe(1)
      } finally {
        server.close()
        sandbox.stop()
      }
    },
  )
})

/**
 * A fake upstream that answers as a sandbox would, but for six drifts: the
 * contacts list renames `phone`, `limit=500` gets a page instead of a 400,
 * the first page of calls is out of order, a later page repeats the last
 * call of the page before, GET /v1/me has no `meta`, and the leads are a
 * 500 in HTML.
 */
async function driftedUpstream(): Promise<string> {
  const world = createSandbox({ now: NOW })
  await world.ready
  /** The last call of each page of calls served, by the cursor that follows it. */
  const lastCallBefore = new Map<string, unknown>()
  return fakeUpstream(async (request, response) => {
    const url = new URL(request.url!, 'http://upstream.test')
    if (url.pathname === '/v1/leads') {
      response
        .writeHead(500, { 'Content-Type': 'text/html' })
        .end('<html><body><h1>500 Internal Server Error</h1></body></html>')
      return
    }
    if (url.pathname === '/v1/calls' && url.searchParams.get('limit') === '500') url.searchParams.set('limit', '50')
    const answered = (await answer(
      world,
      new Request(url, { method: request.method, headers: headersOf(request), body: await bodyOf(request) }),
    ))!
    const body = JSON.parse(await answered.text())
    if (url.pathname === '/v1/contacts' && Array.isArray(body.data)) {
      body.data = body.data.map(({ phone, ...contact }: { phone: string }) => ({ ...contact, phone_number: phone }))
    }
    if (url.pathname === '/v1/calls' && answered.status === 200) {
      const cursor = url.searchParams.get('cursor')
      if (cursor === null) [body.data[0], body.data[1]] = [body.data[1], body.data[0]]
      else body.data = [lastCallBefore.get(cursor), ...body.data.slice(0, -1)]
      if (body.next_cursor) lastCallBefore.set(body.next_cursor, body.data.at(-1))
    }
    if (url.pathname === '/v1/me') delete body.meta
    response.writeHead(answered.status, Object.fromEntries(answered.headers)).end(JSON.stringify(body))
  })
}

function headersOf(request: IncomingMessage): Headers {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers.set(name, value)
  return headers
}

async function bodyOf(request: IncomingMessage): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (request.method === 'GET' || request.method === 'HEAD') return undefined
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return new Uint8Array(Buffer.concat(chunks))
}

describe('proxy mode, in front of an upstream that drifts from the contract', () => {
  it('names every drift in the drift report, by endpoint, rule and field, and marks each answer', async () => {
    const upstream = await driftedUpstream()
    const proxy = await sandboxServer({ proxy: upstream })
    const marks = new Map<string, string | null>()
    const through = async (path: string) => {
      const got = await call(proxy.url + path)
      marks.set(path, got.headers.get('x-sandbox-contract'))
      return got
    }
    const first = await through('/v1/calls?limit=3')
    await through(`/v1/calls?limit=3&cursor=${first.body.next_cursor}`)
    await through('/v1/calls?limit=500')
    await through('/v1/contacts?limit=2')
    await through('/v1/me')
    const leads = await through('/v1/leads')
    const clean = await through(`/v1/calls/${first.body.data[0].id}`)

    // The answers come back as the upstream gave them, marked; one that is not JSON as the contract's envelope naming
    // what came.
    expect(leads.status).toBe(502)
    expect(leads.body.error).toMatchObject({
      type: 'api_error',
      code: 'upstream_not_json',
      message: expect.stringMatching(/answered 500 with text\/html, not JSON/),
    })
    expect(clean.status).toBe(200)
    expect(marks.get(`/v1/calls/${first.body.data[0].id}`)).toBe('ok')
    for (const [path, mark] of marks)
      if (!path.startsWith('/v1/calls/')) expect(mark, path).toMatch(/^violations=[1-9]\d*$/)
    expect(marks.get('/v1/contacts?limit=2')).toBe('violations=4') // two contacts, each without phone and with phone_number

    const report = await driftReport(proxy.url)
    const rulesOf = (endpoint: string) =>
      Object.fromEntries(
        report.endpoints
          .find((entry: { endpoint: string }) => entry.endpoint === endpoint)
          .rules.map((rule: { rule: string }) => [rule.rule, rule]),
      )
    const calls = rulesOf('GET /v1/calls')
    expect(Object.keys(calls).sort()).toEqual(['duplicate', 'order', 'status'])
    expect(calls.order.examples[0]).toMatchObject({ request: 'GET /v1/calls?limit=3', field: 'data[1]' })
    expect(calls.duplicate.examples[0]).toMatchObject({
      field: 'data[0].id',
      got: JSON.stringify(first.body.data[2].id),
    })
    expect(calls.duplicate.examples[0].request).toContain('cursor=')
    expect(calls.status.examples[0]).toMatchObject({
      request: 'GET /v1/calls?limit=500',
      field: '(status)',
      got: '200',
    })
    expect(calls.status.examples[0].expected).toMatch(/^400 .*limit must be an integer from 1 to 100/)

    const contacts = rulesOf('GET /v1/contacts')
    expect(Object.keys(contacts).sort()).toEqual(['fields', 'schema'])
    expect(contacts.fields).toMatchObject({ violations: 2, answers: 1 })
    expect(contacts.fields.examples[0]).toMatchObject({
      field: 'data[0].phone_number',
      expected: expect.stringContaining('no such field'),
    })
    expect(contacts.schema.examples[0]).toMatchObject({ field: 'data[0].phone', got: '(missing)' })

    const me = rulesOf('GET /v1/me')
    expect(Object.keys(me)).toEqual(['meta'])
    expect(me.meta.examples[0]).toMatchObject({ field: 'meta', got: '(missing)' })

    const leadsRules = rulesOf('GET /v1/leads')
    expect(Object.keys(leadsRules)).toEqual(['json'])
    expect(leadsRules.json.examples[0]).toMatchObject({ status: 500, got: expect.stringContaining('text/html') })
    expect(rulesOf('GET /v1/calls/:call_id')).toEqual({})

    // Each rule says what it holds the upstream to, and each example names the upstream's request.
    expect(calls.order.promise).toMatch(/created_at descending, then id descending/)
    expect(contacts.fields.examples[0].upstream_request_id).toMatch(/^req_/)
    expect(report.answers_with_violations).toBe(6)

    // The journal entry of a request holds its violations.
    const { body } = await call(`${proxy.url}/_sandbox/requests?limit=7`, { key: null })
    const contactsEntry = body.data.find((entry: { path: string }) => entry.path === '/v1/contacts')
    expect(contactsEntry.contract.violation_count).toBe(4)
    expect(contactsEntry.contract.violations).toContainEqual({
      rule: 'fields',
      field: 'data[1].phone_number',
      expected: expect.any(String),
      got: expect.stringMatching(/^"\+1\d{10}"$/),
    })
  })
})

it('holds a key to the scopes GET /v1/me gave it: once the upstream said them, a 200 where the key lacks the scope is a wrong status', async () => {
  const world = createSandbox({ now: NOW })
  await world.ready
  // An upstream whose keys read every list, whatever their scopes: it answers the leads of sk_sandbox_calls.
  const upstream = await fakeUpstream(async (request, response) => {
    const url = new URL(request.url!, 'http://upstream.test')
    const answered = (await answer(
      world,
      new Request(url, {
        headers: {
          authorization: url.pathname === '/v1/me' ? request.headers.authorization! : 'Bearer sk_sandbox_all',
        },
      }),
    ))!
    response.writeHead(answered.status, Object.fromEntries(answered.headers)).end(await answered.text())
  })
  const proxy = await sandboxServer({ proxy: upstream })
  const key = 'sk_sandbox_calls'
  expect((await call(`${proxy.url}/v1/leads?limit=1`, { key })).headers.get('x-sandbox-contract')).toBe('ok')
  expect((await call(`${proxy.url}/v1/me`, { key })).body.data.scopes).toEqual(['calls:read'])
  expect((await call(`${proxy.url}/v1/leads?limit=1`, { key })).headers.get('x-sandbox-contract')).toBe('violations=1')
  const { examples } = (await driftReport(proxy.url)).endpoints.find(
    ({ endpoint }: { endpoint: string }) => endpoint === 'GET /v1/leads',
  ).rules[0]
  expect(examples).toEqual([
    expect.objectContaining({
      field: '(status)',
      expected: '403 or 401: the key lacks leads:read (its scopes, as GET /v1/me said: calls:read)',
      got: '200',
    }),
  ])
})

it('passes on a compressed answer decoded, without its Content-Encoding, though it asked for none', async () => {
  const world = createSandbox({ now: NOW })
  await world.ready
  const upstream = await fakeUpstream(async (request, response) => {
    expect(request.headers['accept-encoding']).toBe('identity')
    // No msw listens in this process now: nothing of msw's goes to the service.
    expect(request.headers.accept ?? '').not.toContain('msw/passthrough')
    expect(request.headers.via).toMatch(/^1\.1 call-sandbox-/)
    const answered = (await answer(
      world,
      new Request(new URL(request.url!, 'http://upstream.test'), {
        headers: { authorization: request.headers.authorization! },
      }),
    ))!
    response
      .writeHead(answered.status, { ...Object.fromEntries(answered.headers), 'Content-Encoding': 'gzip' })
      .end(gzipSync(await answered.text()))
  })
  const proxy = await sandboxServer({ proxy: upstream })
  const got = await call(`${proxy.url}/v1/me`)
  expect(got.body.data.organization_name).toBe('Harbor Dental Care')
  expect(got.headers.get('content-encoding')).toBeNull()
  expect(got.headers.get('x-sandbox-contract')).toBe('ok')
})

describe('proxy mode, when the upstream gives no answer', () => {
  /** A port nothing listens on: a server's, once closed. */
  async function closedPort(): Promise<number> {
    const server = createServer().listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    const { port } = server.address() as AddressInfo
    await new Promise((resolve) => server.close(resolve))
    return port
  }

  const cases: Array<{ name: string; upstream: () => Promise<string>; status: number; code: string; message: RegExp }> =
    [
      {
        name: 'the connection is refused',
        upstream: async () => `http://127.0.0.1:${await closedPort()}`,
        status: 502,
        code: 'upstream_unreachable',
        message: /refused/,
      },
      {
        name: 'the host does not exist',
        upstream: async () => 'http://no-such-upstream.invalid',
        status: 502,
        code: 'upstream_unreachable',
        message: /no such host/,
      },
      {
        name: 'TLS fails (https to a plain HTTP server)',
        upstream: async () => (await fakeUpstream((_, response) => response.end('{}'))).replace('http:', 'https:'),
        status: 502,
        code: 'upstream_unreachable',
        message: /TLS failed/,
      },
      {
        name: 'the connection drops before an answer',
        upstream: () => fakeUpstream((request) => request.socket.destroy()),
        status: 502,
        code: 'upstream_unreachable',
        message: /closed/,
      },
      {
        name: 'it never answers',
        upstream: () => fakeUpstream(() => undefined),
        status: 504,
        code: 'upstream_timeout',
        message: /did not answer within 300 ms/,
      },
      {
        name: 'its body stops halfway',
        upstream: () =>
          fakeUpstream((_, response) =>
            response.writeHead(200, { 'Content-Type': 'application/json' }).write('{"data": ['),
          ),
        status: 504,
        code: 'upstream_timeout',
        message: /did not answer within 300 ms/,
      },
    ]

  for (const { name, upstream, status, code, message } of cases) {
    it(`answers ${status} ${code} in the contract's envelope, at once or by the timeout, when ${name}`, async () => {
      const proxy = await sandboxServer({ proxy: { upstream: await upstream(), timeoutMs: 300 } })
      const started = Date.now()
      const got = await call(`${proxy.url}/v1/calls`)
      expect(Date.now() - started).toBeLessThan(3_000)
      expect(got.status).toBe(status)
      expect(got.body.error).toMatchObject({ type: 'api_error', code })
      expect(got.body.error.message).toMatch(message)
      expect(got.headers.get('x-request-id')).toBe(got.body.meta.request_id)
      expect(got.headers.get('x-sandbox-request-id')).toBe(got.body.meta.request_id)
      const report = await driftReport(proxy.url)
      expect(report).toMatchObject({
        answers: 0,
        unanswered: 1,
        endpoints: [{ endpoint: 'GET /v1/calls', unanswered: 1, rules: [] }],
      })
    })
  }

  it('answers 502 when the upstream is the proxy itself, instead of sending the request round forever (createApp of a proxying sandbox)', async () => {
    const server = createServer()
    server.listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const sandbox = createSandbox({ now: NOW, proxy: sendingOverHttp(url) })
    server.on('request', createApp(sandbox, { quiet: true }))
    try {
      const got = await call(`${url}/v1/me`)
      expect(got.status).toBe(502)
      expect(got.body.error.code).toBe('upstream_unreachable')
      expect(got.body.error.message).toMatch(/is this proxy itself/)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('refuses an upstream URL it cannot use, naming what is wrong', async () => {
    await expect(sandboxServer({ proxy: 'api.example.com' })).rejects.toThrow(/absolute URL/)
    await expect(sandboxServer({ proxy: 'ftp://api.example.com' })).rejects.toThrow(/http: or https:/)
    await expect(sandboxServer({ proxy: 'https://user:secret@api.example.com' })).rejects.toThrow(/user or password/)
    await expect(sandboxServer({ proxy: { upstream: 'https://api.example.com', timeoutMs: 0 } })).rejects.toThrow(
      /timeoutMs/,
    )
  })
})

it('names the organization of the second key apart: ORG_2 stays ORG_2 through the proxy', async () => {
  const upstream = await sandboxServer()
  const proxy = await sandboxServer({ proxy: upstream.url })
  expect((await call(`${proxy.url}/v1/me`, { key: 'sk_sandbox_org2' })).body.data.organization_id).toBe(ORG_2)
})
