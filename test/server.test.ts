/**
 * What is particular to the standalone server and its command line: CORS,
 * JSON answers outside the API, the request log, the
 * `call-sandbox` program itself, and shutting down.
 *
 * The CLI tests run the built program (`dist/bin/call-sandbox.js`); `npm test`
 * builds it first.
 */
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { connect } from 'node:net'
import module from 'node:module'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { ErrorEnvelope, Meta } from '../src/index.js'
import { startServer, type RunningServer } from '../src/server/startServer.js'
import { CLI, killChildren, LISTENING, listening, runCli } from './support/cli.js'
import { tempFolder } from './support/tempFolder.js'
import { NOW, ORG_1 } from './support/transports.js'

const BROWSER_APP = 'http://localhost:5173'
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000'

/** The default world's keys and their scopes (contract, section 2). */
const KEYS = [
  {
    key: 'sk_sandbox_all',
    scopes: ['calls:read', 'contacts:read', 'contacts:write', 'leads:read', 'appointments:read'],
  },
  { key: 'sk_sandbox_readonly', scopes: ['calls:read', 'contacts:read', 'leads:read', 'appointments:read'] },
  { key: 'sk_sandbox_calls', scopes: ['calls:read'] },
  {
    key: 'sk_sandbox_org2',
    scopes: ['calls:read', 'contacts:read', 'contacts:write', 'leads:read', 'appointments:read'],
  },
]

/** A comma-separated header as lower-case items: `X-Request-Id, Location` → `['x-request-id', 'location']`. */
function headerList(value: string | null): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean)
}

async function json(response: Response): Promise<any> {
  const text = await response.text()
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Whether a TCP connection to the port is accepted, or the error code it fails with. */
function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port })
    socket.setTimeout(3_000)
    socket.once('connect', () => {
      socket.destroy()
      resolve('connected')
    })
    socket.once('timeout', () => {
      socket.destroy()
      resolve('timeout')
    })
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
  })
}

function portOf(url: string): number {
  return Number(new URL(url).port)
}

describe('the standalone server', () => {
  let running: RunningServer

  beforeAll(async () => {
    // The browser app may call the control plane too (test/control-origin.test.ts: what a page not allowed gets).
    running = await startServer({ port: 0, quiet: true, now: NOW, allowedOrigins: [BROWSER_APP] })
  })
  afterAll(() => running?.close())

  describe('CORS, for browser apps on another origin', () => {
    it.each([
      { method: 'GET', path: '/v1/calls', requestHeaders: 'authorization' },
      { method: 'POST', path: '/v1/contacts', requestHeaders: 'content-type, authorization' },
    ])(
      'answers a CORS preflight for $method $path with $requestHeaders from another origin',
      async ({ method, path, requestHeaders }) => {
        const response = await fetch(running.url + path, {
          method: 'OPTIONS',
          headers: {
            Origin: BROWSER_APP,
            'Access-Control-Request-Method': method,
            'Access-Control-Request-Headers': requestHeaders,
          },
        })
        await response.arrayBuffer()

        expect(response.status).toBe(204)
        expect([BROWSER_APP, '*']).toContain(response.headers.get('access-control-allow-origin'))
        // A wildcard `*` in Allow-Methods would do, but not in Allow-Headers: it never covers Authorization.
        const allowedMethods = headerList(response.headers.get('access-control-allow-methods'))
        expect(
          allowedMethods.includes('*') || allowedMethods.includes(method.toLowerCase()),
          `Allow-Methods: ${allowedMethods}`,
        ).toBe(true)
        expect(headerList(response.headers.get('access-control-allow-headers'))).toEqual(
          expect.arrayContaining(headerList(requestHeaders)),
        )
      },
    )

    it.each([
      ['/v1/calls', 'GET'],
      ['/v1/contacts', 'GET,POST'],
      ['/v1/contacts/3f2b8c1e-9d4a-4e7b-8c2f-1a2b3c4d5e6f', 'GET'],
      ['/_sandbox/reset', 'POST'],
      ['/_sandbox/clock', 'GET,POST'],
      ['/_sandbox/sessions', 'POST,GET'],
      ['/sessions/ci-1/v1/contacts', 'GET,POST'],
    ])('allows in a preflight for %s the methods the path takes, %s, as its Allow says', async (path, methods) => {
      const response = await fetch(running.url + path, {
        method: 'OPTIONS',
        headers: { Origin: BROWSER_APP, 'Access-Control-Request-Method': 'GET' },
      })
      await response.arrayBuffer()
      expect(response.headers.get('access-control-allow-methods')).toBe(methods)
      const refused = await fetch(running.url + path, { method: 'PUT' })
      if (refused.status === 405) expect(refused.headers.get('allow')).toBe(methods.split(',').join(', '))
    })

    it.each([
      {
        name: 'a list',
        method: 'GET',
        path: '/v1/calls?limit=1',
        key: 'sk_sandbox_all',
        status: 200,
        exposes: ['x-request-id'],
      },
      { name: 'an error', method: 'GET', path: '/v1/me', key: null, status: 401, exposes: ['x-request-id'] },
      {
        name: 'an unknown path',
        method: 'GET',
        path: '/nowhere',
        key: 'sk_sandbox_all',
        status: 404,
        exposes: ['x-request-id'],
      },
      {
        name: 'a created contact',
        method: 'POST',
        path: '/v1/contacts',
        key: 'sk_sandbox_all',
        body: JSON.stringify({ phone: '+14155550199' }),
        status: 201,
        exposes: ['x-request-id', 'location'],
      },
    ])(
      'lets a page on another origin read $name and its $exposes header',
      async ({ method, path, key, body, status, exposes }) => {
        const headers: Record<string, string> = { Origin: BROWSER_APP }
        if (key) headers.Authorization = `Bearer ${key}`
        if (body) headers['Content-Type'] = 'application/json'
        const response = await fetch(running.url + path, { method, headers, body })
        const answer = await json(response)

        expect(response.status, JSON.stringify(answer)).toBe(status)
        expect([BROWSER_APP, '*']).toContain(response.headers.get('access-control-allow-origin'))
        expect(headerList(response.headers.get('access-control-expose-headers'))).toEqual(
          expect.arrayContaining(exposes),
        )
      },
    )
  })

  describe('the API reference at /docs', () => {
    it('serves Swagger UI over /openapi.json, every file the page names from here, at once from its first request', async () => {
      const page = await fetch(`${running.url}/docs/`)
      expect(page.status).toBe(200)
      expect(page.headers.get('content-type')).toMatch(/^text\/html/)
      const html = await page.text()
      expect(html).toContain('<title>call-sandbox API</title>')
      const files = [...html.matchAll(/(?:src|href)="\.\/([^"]+)"/g)].map((match) => match[1])
      expect(files).toEqual(expect.arrayContaining(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-init.js']))
      for (const file of files) expect((await fetch(`${running.url}/docs/${file}`)).status, file).toBe(200)
      expect((await (await fetch(`${running.url}/docs/swagger-ui-bundle.js`)).text()).length).toBeGreaterThan(100_000)
      const init = await fetch(`${running.url}/docs/swagger-ui-init.js`)
      expect(await init.text()).toContain('"url": "/openapi.json"')
    })

    it('sends /docs to /docs/, where the relative files of the page resolve', async () => {
      const response = await fetch(`${running.url}/docs`, { redirect: 'manual' })
      expect(response.status).toBe(301)
      expect(response.headers.get('location')).toBe('/docs/')
    })

    it('answers a file the reference does not have with the JSON 404', async () => {
      const response = await fetch(`${running.url}/docs/swagger-ui.js`)
      expect(response.status).toBe(404)
      expect((await json(response)).error.code).toBe('not_found')
    })
  })

  describe('answers outside the API', () => {
    it.each(['/', '/v2/calls', '/favicon.ico', '/v1', '/v1/nothing-here'])(
      'answers GET %s with a JSON 404 in the error envelope',
      async (path) => {
        const response = await fetch(running.url + path, { headers: { Authorization: 'Bearer sk_sandbox_all' } })
        const body = await json(response)

        expect(response.status, JSON.stringify(body)).toBe(404)
        expect(response.headers.get('content-type')).toMatch(/^application\/json\b/)
        const envelope = ErrorEnvelope.strict().parse(body)
        expect(envelope.error.code).toBe('not_found')
        expect(envelope.error.message.length).toBeGreaterThan(0)
        expect(response.headers.get('x-request-id')).toBe(envelope.meta.request_id)
        expect(envelope.meta.timestamp).toBe(NOW)
      },
    )

    it.each(['POST', 'DELETE', 'PUT'])('answers %s on an unknown path with the same JSON 404', async (method) => {
      const response = await fetch(`${running.url}/v2/calls`, {
        method,
        headers: { Authorization: 'Bearer sk_sandbox_all' },
      })
      const body = await json(response)

      expect(response.status, JSON.stringify(body)).toBe(404)
      expect(response.headers.get('content-type')).toMatch(/^application\/json\b/)
      expect(ErrorEnvelope.strict().parse(body).error.code).toBe('not_found')
      expect(response.headers.get('x-request-id')).toBe(body.meta.request_id)
    })

    it.each([
      { method: 'DELETE', path: '/v1/calls', allowed: ['GET'] },
      { method: 'POST', path: '/v1/calls', allowed: ['GET'] },
      { method: 'PUT', path: '/v1/contacts', allowed: ['GET', 'POST'] },
      { method: 'PATCH', path: '/v1/me', allowed: ['GET'] },
      { method: 'DELETE', path: `/v1/calls/${UNKNOWN_ID}`, allowed: ['GET'] },
      { method: 'POST', path: '/v1/leads', allowed: ['GET'] },
    ])('answers $method $path with 405 and Allow: $allowed', async ({ method, path, allowed }) => {
      const response = await fetch(running.url + path, { method, headers: { Authorization: 'Bearer sk_sandbox_all' } })
      const body = await json(response)

      expect(response.status, JSON.stringify(body)).toBe(405)
      expect(response.headers.get('content-type')).toMatch(/^application\/json\b/)
      expect(ErrorEnvelope.strict().parse(body).error.code).toBe('method_not_allowed')
      const allow = headerList(response.headers.get('allow'))
      expect(allow).toEqual(expect.arrayContaining(allowed.map((name) => name.toLowerCase())))
      expect(allow).not.toContain(method.toLowerCase())
      expect(response.headers.get('x-request-id')).toBe(body.meta.request_id)
    })
  })

  describe('answers what fetch and MSW never see', () => {
    /** One raw HTTP exchange, for what fetch will not send: TRACE, a bad method, repeated headers. */
    function raw(request: string): Promise<{ status: number; headers: string; body: any; interim: number[] }> {
      return new Promise((resolve, reject) => {
        const { port } = new URL(running.url)
        const socket = connect(Number(port), '127.0.0.1', () => socket.end(request))
        let text = ''
        socket.on('data', (chunk) => (text += chunk))
        socket.on('error', reject)
        socket.on('close', () => {
          // Interim answers (100 Continue) come first, each a status line and a blank line.
          const interim: number[] = []
          for (
            let match = /^HTTP\/1\.1 (1\d\d) [^\r]*\r\n\r\n/.exec(text);
            match;
            match = /^HTTP\/1\.1 (1\d\d) [^\r]*\r\n\r\n/.exec(text)
          ) {
            interim.push(Number(match[1]))
            text = text.slice(match[0].length)
          }
          const [head = '', ...rest] = text.split('\r\n\r\n')
          // The JSON object, whether the body came whole or in chunks.
          const body = rest.join('\r\n\r\n')
          try {
            resolve({
              interim,
              status: Number(head.split(' ')[1]),
              headers: head.toLowerCase(),
              body: JSON.parse(body.slice(body.indexOf('{'), body.lastIndexOf('}') + 1)),
            })
          } catch (error) {
            reject(new Error(`not a JSON answer: ${text}`, { cause: error }))
          }
        })
      })
    }

    it.each([
      ['TRACE', '/v1/calls', 405, 'method_not_allowed', 'GET'],
      ['CONNECT', '/v1/me', 405, 'method_not_allowed', 'GET'],
      ['TRACE', '/v1/nope', 404, 'not_found', undefined],
      ['TRACE', '/_sandbox/reset', 405, 'method_not_allowed', 'POST'],
      ['TRACE', '/_sandbox/clock', 405, 'method_not_allowed', 'GET, POST'],
      ['TRACE', '/_sandbox/nope', 404, 'not_found', undefined],
      ['TRACE', '/openapi.json', 405, 'method_not_allowed', 'GET'],
      ['TRACE', '/_sandbox/sessions', 405, 'method_not_allowed', 'POST, GET'],
      ['TRACE', '/sessions/ci-1/v1/calls', 405, 'method_not_allowed', 'GET'],
      ['TRACE', '/sessions/ci-1/_sandbox/reset', 405, 'method_not_allowed', 'POST'],
    ])('answers %s %s with %i %s, as its plane answers another method', async (method, path, status, code, allow) => {
      const answer = await raw(
        `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer sk_sandbox_all\r\nConnection: close\r\n\r\n`,
      )
      expect(answer.status).toBe(status)
      const { error } = ErrorEnvelope.strict().parse(answer.body)
      expect(error.code).toBe(code)
      if (allow) expect(answer.headers).toContain(`allow: ${allow.toLowerCase()}`)
      // A 404 lists the endpoints of the plane the path is under: a control path, the control plane's.
      if (status === 404)
        expect(error.message).toContain(path.startsWith('/_sandbox') ? 'POST /_sandbox/reset' : 'GET /v1/calls')
    })

    it.each([
      ['no Host on HTTP/1.1', 'GET /v1/me HTTP/1.1\r\n', 400, 'invalid_parameter', 'Host'],
      ['no Host on HTTP/1.1, a path of no plane', 'GET /docs HTTP/1.1\r\n', 400, 'invalid_parameter', 'Host'],
      [
        'Expect: teapot',
        'GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: teapot\r\n',
        417,
        'expectation_failed',
        'Expect',
      ],
      [
        'Expect: teapot on a POST',
        'POST /v1/contacts HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: teapot\r\nContent-Type: application/json\r\nContent-Length: 2\r\n',
        417,
        'expectation_failed',
        'Expect',
      ],
    ])('refuses a request with %s in the envelope, with its request id', async (_what, head, status, code, param) => {
      const answer = await raw(
        `${head}Authorization: Bearer sk_sandbox_all\r\nConnection: close\r\n\r\n${head.startsWith('POST') ? '{}' : ''}`,
      )
      expect(answer.status).toBe(status)
      expect(answer.headers).toContain('content-type: application/json')
      expect(answer.headers).toContain('access-control-allow-origin: *')
      const { error, meta } = ErrorEnvelope.strict().parse(answer.body)
      expect(error).toMatchObject({ code, param })
      expect(answer.headers).toContain(`x-request-id: ${meta.request_id.toLowerCase()}`)
    })

    it('takes a request without a Host on HTTP/1.0, which needs none', async () => {
      const answer = await raw('GET /v1/me HTTP/1.0\r\nAuthorization: Bearer sk_sandbox_all\r\n\r\n')
      expect(answer.status).toBe(200)
      expect(answer.body.data.organization_id).toBe(ORG_1)
    })

    it('still answers Expect: 100-continue, going on with the body', async () => {
      const answer = await raw(
        'POST /_sandbox/reset HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
      )
      expect(answer.interim).toEqual([100])
      expect(answer.status).toBe(200)
    })

    it('answers a request that is not valid HTTP with a JSON 400', async () => {
      const answer = await raw('FO O /v1/calls HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
      expect(answer.status).toBe(400)
      expect(answer.headers).toContain('content-type: application/json')
      expect(ErrorEnvelope.strict().parse(answer.body).error.code).toBe('invalid_parameter')
    })

    it('reads a query string of 20,000 characters, and refuses one past 64 KiB with a JSON 400', async () => {
      const long = await fetch(`${running.url}/v1/calls?limit=${'0'.repeat(20_000)}1`, {
        headers: { Authorization: 'Bearer sk_sandbox_all' },
      })
      expect(long.status).toBe(400)
      expect((await long.json()).error.param).toBe('limit')
      const huge = await fetch(`${running.url}/v1/calls?limit=${'0'.repeat(70_000)}`, {
        headers: { Authorization: 'Bearer sk_sandbox_all' },
      })
      expect(huge.status).toBe(400)
      expect(ErrorEnvelope.strict().parse(await huge.json()).error.code).toBe('invalid_parameter')
    })

    it.each(['exa[mple', 'a:99999'])('answers a request whose Host is %s with a JSON 400, not a 500', async (host) => {
      const answer = await raw(
        `GET /v1/me HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer sk_sandbox_all\r\nConnection: close\r\n\r\n`,
      )
      expect(answer.status).toBe(400)
      expect(answer.body.error).toMatchObject({ code: 'invalid_parameter', param: 'Host' })
    })

    it('refuses two Authorization headers, as in process', async () => {
      const answer = await raw(
        'GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer sk_sandbox_all\r\nAuthorization: Bearer sk_sandbox_org2\r\nConnection: close\r\n\r\n',
      )
      expect(answer.status).toBe(401)
      expect(answer.body.error.code).toBe('unauthorized')
    })
  })
})

describe('the request log', () => {
  const requests = [
    { method: 'GET', path: '/v1/calls?limit=1', key: 'sk_sandbox_all', status: 200 },
    { method: 'GET', path: '/v1/me', key: null, status: 401 },
    { method: 'GET', path: '/v1/leads', key: 'sk_sandbox_calls', status: 403 },
    { method: 'DELETE', path: '/v1/calls', key: 'sk_sandbox_all', status: 405 },
    { method: 'GET', path: '/favicon.ico', key: null, status: 404 },
  ]

  async function send(
    url: string,
    { method, path, key }: (typeof requests)[number],
  ): Promise<{ status: number; requestId: string | null }> {
    const response = await fetch(url + path, { method, headers: key ? { Authorization: `Bearer ${key}` } : {} })
    await response.arrayBuffer()
    return { status: response.status, requestId: response.headers.get('x-request-id') }
  }

  it('writes one line per request, with method, path, status, duration in ms and the request id it answered with', async () => {
    const lines: string[] = []
    const server = await startServer({ port: 0, quiet: false, log: (line) => lines.push(line), now: NOW })
    try {
      const sent: { request: (typeof requests)[number]; requestId: string }[] = []
      for (const request of requests) {
        const { status, requestId } = await send(server.url, request)
        expect(status, `${request.method} ${request.path}`).toBe(request.status)
        expect(Meta.shape.request_id.safeParse(requestId).success, String(requestId)).toBe(true)
        sent.push({ request, requestId: requestId! })
      }
      // The log line is written when the answer has gone out, which may be a moment after the client read it; the
      // line of one more request comes after every line of those before it.
      const { requestId: lastId } = await send(server.url, requests[0]!)
      const lastLine = () => lines.findIndex((line) => line.includes(lastId!))
      await vi.waitFor(() => expect(lastLine()).toBeGreaterThanOrEqual(0))
      lines.splice(lastLine(), 1)

      expect(lines, lines.join('\n')).toHaveLength(requests.length)
      for (const { request, requestId } of sent) {
        const matching = lines.filter((line) => line.includes(requestId))
        expect(
          matching,
          `the line of ${request.method} ${request.path} (${requestId}) in:\n${lines.join('\n')}`,
        ).toHaveLength(1)
        const line = matching[0]!
        expect(line).toContain(`${request.method} ${request.path}`)
        expect(line).toMatch(new RegExp(`\\b${request.status}\\b`))
        expect(line).toMatch(/\b\d+(\.\d+)? ?ms\b/)
        expect(line).not.toMatch(/\n/)
      }
    } finally {
      await server.close()
    }
  })

  it('writes nothing when quiet', async () => {
    const log = vi.fn()
    const server = await startServer({ port: 0, quiet: true, log, now: NOW })
    try {
      for (const request of requests) expect((await send(server.url, request)).status).toBe(request.status)
    } finally {
      // close() resolves once every answer is out, after any line they would have written.
      await server.close()
    }
    expect(log).not.toHaveBeenCalled()
  })
})

describe('shutting down', () => {
  it('close() resolves, and the port then refuses connections', async () => {
    const server = await startServer({ port: 0, quiet: true, now: NOW })
    const port = portOf(server.url)
    // A request first, so that a kept-alive connection is open when it closes.
    const response = await fetch(`${server.url}/v1/me`, { headers: { Authorization: 'Bearer sk_sandbox_all' } })
    await response.arrayBuffer()
    expect(response.status).toBe(200)
    expect(await tryConnect(port)).toBe('connected')

    await expect(server.close()).resolves.toBeUndefined()

    expect(await tryConnect(port)).toBe('ECONNREFUSED')
    await expect(fetch(`${server.url}/v1/me`)).rejects.toThrow()
  })

  it('close() lets a request that is being answered finish, then resolves without waiting on its kept-alive connection', async () => {
    const server = await startServer({ port: 0, quiet: true, now: NOW, latency: 300 })
    const arrived = new Promise((resolve) => server.server.once('request', resolve))
    const inFlight = fetch(`${server.url}/v1/me`, { headers: { Authorization: 'Bearer sk_sandbox_all' } }).then(
      async (response) => ({
        status: response.status,
        body: await json(response),
        answeredAt: performance.now(),
      }),
    )
    await arrived

    const closed = server.close().then(() => performance.now())
    const { status, body, answeredAt } = await inFlight
    const closedAt = await closed

    expect(status).toBe(200)
    expect(body.data.organization_id).toBe(ORG_1)
    // Once the last answer has gone out there is nothing left to wait for: the connection
    // it came on must not hold the shutdown (and `call-sandbox` on SIGTERM) for seconds.
    expect(closedAt - answeredAt, 'ms from the last answer to close() resolving').toBeLessThan(1_000)
    expect(await tryConnect(portOf(server.url))).toBe('ECONNREFUSED')
  })
})

describe('the call-sandbox program', () => {
  beforeAll(() => {
    if (!existsSync(new URL(`../${CLI}`, import.meta.url)))
      throw new Error(`${CLI} is missing: run "npm run build" first (npm test does).`)
  })
  afterEach(() => {
    killChildren()
  })

  it('--help exits 0 and lists every option', async () => {
    const cli = runCli(['--help'])
    const { code } = await cli.exit()

    expect(code, cli.stderr()).toBe(0)
    for (const flag of [
      '--port',
      '--host',
      '--seed',
      '--now',
      '--data',
      '--scenario',
      '--latency',
      '--error-rate',
      '--rate-limit',
      '--live',
      '--admin-token',
      '--journal-size',
      '--journal-bytes',
      '--max-sessions',
      '--session-limit',
      '--session-ttl',
      '--proxy',
      '--proxy-timeout',
      '--record',
      '--world',
      '--request-timeout',
      '--quiet',
    ]) {
      expect(cli.stdout(), `${flag} in:\n${cli.stdout()}`).toMatch(new RegExp(`^\\s+(-\\w, )?${flag}\\b`, 'm'))
    }
  })

  it('starts on the port given, prints its URL and every key with its scopes, serves the API, and exits 0 on SIGTERM', async () => {
    const cli = runCli(['--port', '0', '--now', '2026-11-20T12:00:00Z'])
    const { url, port } = await listening(cli)
    expect(port).toBeGreaterThan(0)
    const stdout = await cli.waitForOutput((text) => KEYS.every(({ key }) => text.includes(key)), 'list of keys')

    for (const { key, scopes } of KEYS) {
      const line = stdout.split('\n').find((text) => text.includes(key))
      expect(line, `the line of ${key} in:\n${stdout}`).toBeDefined()
      expect(line!.trimEnd().endsWith(scopes.join(', ')), `scopes of ${key} in: ${line}`).toBe(true)
    }

    const response = await fetch(`${url}/v1/me`, { headers: { Authorization: 'Bearer sk_sandbox_all' } })
    const body = await json(response)
    expect(response.status, JSON.stringify(body)).toBe(200)
    expect(body.data.organization_id).toBe(ORG_1)
    expect(body.meta.timestamp).toBe(NOW)

    cli.child.kill('SIGTERM')
    const { code, signal } = await cli.exit(5_000)
    expect({ code, signal }, cli.stderr()).toEqual({ code: 0, signal: null })
    expect(await tryConnect(port)).toBe('ECONNREFUSED')
  })

  it('takes the scenario, faults, live mode and admin token flags, says so at start, and serves with them', async () => {
    const cli = runCli([
      '--port',
      '0',
      '--now',
      '2026-11-20T12:00:00Z',
      '--scenario',
      'empty',
      '--rate-limit',
      '2/min',
      '--error-rate',
      '0',
      '--live',
      '10s',
      '--admin-token',
      'let-me-in-123',
    ])
    const { url } = await listening(cli)
    const stdout = await cli.waitForOutput((text) => text.includes('scenario: empty'), 'the scenario line')
    expect(stdout).toMatch(/rate limit 2 per 60 s, a live call every 10 s/)

    const calls = await fetch(`${url}/v1/calls`, { headers: { Authorization: 'Bearer sk_sandbox_all' } })
    expect(calls.headers.get('x-ratelimit-limit')).toBe('2')
    expect((await json(calls)).data).toEqual([])
    expect((await fetch(`${url}/_sandbox/health`)).status).toBe(401)
    const health = await json(
      await fetch(`${url}/_sandbox/health`, { headers: { Authorization: 'Bearer let-me-in-123' } }),
    )
    expect(health.data).toMatchObject({ scenario: 'empty', live: { interval_ms: 10_000 } })
  })

  it('takes the memory flags, says so at start, and holds to them', async () => {
    const cli = runCli([
      '--port',
      '0',
      '--now',
      '2026-11-20T12:00:00Z',
      '--journal-bytes',
      '64MiB',
      '--max-sessions',
      '5',
      '--session-limit',
      '1',
      '--session-ttl',
      '90m',
    ])
    const { url } = await listening(cli)
    expect(await cli.waitForOutput((text) => text.includes('sessions:'), 'the sessions line')).toContain(
      'up to 5 in memory, 1 in all, each forgotten after 90 min unused',
    )
    expect((await fetch(`${url}/sessions/one/v1/me`)).status).toBe(401)
    const refused = await fetch(`${url}/sessions/two/v1/me`)
    expect(refused.status).toBe(503)
    expect((await json(refused)).error.code).toBe('session_limit_reached')
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(5_000)

    const off = runCli(['--port', '0', '--session-ttl', 'off'])
    await listening(off)
    const line = await off.waitForOutput((text) => text.includes('sessions:'), 'the sessions line')
    expect(line).toContain('up to 200 in memory, 10,000 in all)')
  })

  it('honours PORT from the environment', async () => {
    const cli = runCli(['--now', '2026-11-20T12:00:00Z'], { PORT: '0' })
    const { url, port } = await listening(cli)

    expect(port).toBeGreaterThan(0)
    expect(port).not.toBe(4010)
    const response = await fetch(`${url}/v1/me`, { headers: { Authorization: 'Bearer sk_sandbox_all' } })
    await response.arrayBuffer()
    expect(response.status).toBe(200)
  })

  it.each([
    { args: ['--port', 'abc'], message: /--port.*abc|abc.*port/i },
    { args: ['--port', '70000'], message: /--port.*70000|70000.*port/i },
    { args: ['--seed', '-1'], message: /--seed.*-1|seed.*-1/i },
    { args: ['--now', 'yesterday'], message: /--now.*yesterday|yesterday.*now/i },
    { args: ['--now', '9999-12-31T23:59:59Z'], message: /--now.*9999-12-31T23:59:59Z.*1971-01-01 to 8999-01-01/ },
    { args: ['--now', '1970-06-01T00:00:00Z'], message: /--now.*1970-06-01T00:00:00Z.*1971-01-01 to 8999-01-01/ },
    { args: ['--request-timeout', '0'], message: /--request-timeout.*0.*from 100 to 3600000/ },
    { args: ['--latency', 'fast'], message: /--latency.*fast|latency.*fast/i },
    { args: ['--organizations', '/nonexistent.json'], message: /\/nonexistent\.json/ },
    { args: ['--scenario', 'rainy'], message: /--scenario.*rainy|rainy.*scenario/i },
    { args: ['--error-rate', '2'], message: /--error-rate.*2/i },
    { args: ['--rate-limit', 'lots'], message: /rate limit.*lots/i },
    { args: ['--live', '1h30'], message: /live.*1h30/i },
    { args: ['--journal-bytes', '1KiB'], message: /--journal-bytes.*from 1 MiB to 64 GiB/ },
    { args: ['--session-ttl', 'soon'], message: /--session-ttl.*such as 30m, 24h or 7d.*"soon"/ },
    { args: ['--session-limit', '0'], message: /--session-limit.*from 1/ },
    { args: ['--host', '0.0.0.0', '--port', '0'], message: /not loopback.*--admin-token/ },
    { args: ['--bogus'], message: /unknown option.*--bogus/i },
    { args: ['--proxy', 'ftp://api.example.com'], message: /--proxy.*http: or https:/ },
    { args: ['--proxy-timeout', '500'], message: /--proxy-timeout goes with --proxy/ },
    { args: ['--record', 'recorded.json'], message: /--record .*give --proxy/ },
    { args: ['--world', '/nonexistent-recording.json'], message: /nonexistent-recording\.json does not exist/ },
    // A store's password is shown by its last 4, as every secret the sandbox did not issue.
    {
      args: ['--store', 'mysql://u:hunter2pass-wxyz@h/db'],
      message: /Got mysql:\/\/u:…wxyz@h\/db, which names no store/,
    },
    {
      args: ['--store', 'redis://:hunter2pass-wxyz@127.0.0.1:1,127.0.0.1:2/3'],
      message: /drop \/3 from redis:\/\/:…wxyz@/,
    },
    { args: ['--store', 'file:relative.log'], message: /--store takes a data file as file:\/\/\/path/ },
    // A URL given is shown without its query and fragment either: a token travels there as often.
    { args: ['--store', 'mysql://h/db?password=hunter2pass-wxyz'], message: /Got mysql:\/\/h\/db\?…, which names/ },
    {
      args: ['--store', 'file://h/x.log?token=hunter2pass-wxyz'],
      message: /file:\/\/\/path.*; got file:\/\/h\/x\.log\?…\./,
    },
    {
      args: ['--store', 'rediss://x y?token=hunter2pass-wxyz'],
      message: /--store: "x y\?…" of rediss:\/\/x y\?… is no host:port/,
    },
    {
      args: ['--store=redis://127.0.0.1:1,127.0.0.1:2/3?token=hunter2pass-wxyz'],
      message: /drop \/3 from redis:\/\/127\.0\.0\.1:1,127\.0\.0\.1:2\/3\?…\./,
    },
    {
      args: ['--proxy', 'https://api.example.com/v1?api_key=hunter2pass-wxyz'],
      message: /--proxy.*https:\/\/api\.example\.com\/v1\?…/,
    },
    {
      args: ['--proxy', 'ftp://u:hunter2pass-wxyz@h/#hunter2pass'],
      message: /http: or https: URL; got ftp:\/\/u:…wxyz@h\/#…\./,
    },
    // A password with an @, a space or a ? in it, unencoded: hidden whole all the same.
    {
      args: ['--store', 'redis://u:pass@hunter2pass-wxyz@127.0.0.1:1,127.0.0.1:2/3'],
      message: /got redis:\/\/u:…wxyz@127\.0\.0\.1:1,127\.0\.0\.1:2\/3\./,
    },
    {
      args: ['--proxy', 'http://u:a hunter2pass-wxyz@api.example.com/'],
      message: /'http:\/\/u:…wxyz@api\.example\.com\/' is invalid/,
    },
    { args: ['--store', 'redis://:hunter2pass?-wxyz@127.0.0.1:1/0'], message: /redis:\/\/:…wxyz@127\.0\.0\.1:1\/0/ },
  ])('refuses $args with a clear message, no stack trace, and a non-zero exit', async ({ args, message }) => {
    const cli = runCli(args)
    const { code } = await cli.exit(10_000)

    expect(code, cli.stderr()).not.toBe(0)
    expect(code).not.toBeNull()
    expect(cli.stderr()).toMatch(message)
    expect(cli.stderr(), 'a stack trace').not.toMatch(/^\s+at .+[(:]\d+/m)
    expect(cli.stdout()).not.toMatch(LISTENING)
    expect(cli.stderr()).not.toContain('hunter2pass')
  })

  it('--proxy with --record in front of another sandbox says so at start, passes requests on checked, and writes a recording that --world serves', async () => {
    const upstream = await startServer({ port: 0, quiet: true, now: NOW })
    const file = join(tempFolder('cli-record'), 'recorded.json')
    try {
      const proxy = runCli(['--port', '0', '--proxy', upstream.url, '--proxy-timeout', '5000', '--record', file])
      const { url } = await listening(proxy)
      const banner = await proxy.waitForOutput((text) => text.includes('proxy:'), 'the proxy line')
      expect(banner).toContain(
        `proxy: ${url}/v1/ goes to ${upstream.url}/v1/ (timeout 5000 ms), held to the contract: ${url}/_sandbox/drift; recording to ${file}`,
      )
      const calls = await fetch(`${url}/v1/calls?limit=3`, { headers: { Authorization: 'Bearer sk_sandbox_all' } })
      expect(calls.headers.get('x-sandbox-contract')).toBe('ok')
      const listed = (await json(calls)).data
      proxy.child.kill('SIGTERM')
      expect((await proxy.exit(5_000)).code, proxy.stderr()).toBe(0)

      const world = runCli(['--port', '0', '--world', file])
      const served = await listening(world)
      expect(await world.waitForOutput((text) => text.includes('world:'), 'the world line')).toMatch(
        /sk_recorded_1 +Harbor Dental Care: calls:read/,
      )
      const recorded = await fetch(`${served.url}/v1/calls?limit=3`, {
        headers: { Authorization: 'Bearer sk_recorded_1' },
      })
      expect((await json(recorded)).data).toEqual(listed)
    } finally {
      await upstream.close()
    }
  })

  describe("Node's compile cache", () => {
    /** Node 22.1 and later have one (module.enableCompileCache); Node 20 has none. */
    const nodeHasCompileCache = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function'
    /**
     * Starts the program on `cache`, with Node saying what it does with its cache on stderr; checks it serves, stops
     * it.
     */
    async function serveOnce(cache: string, env: Record<string, string> = {}): Promise<string> {
      const cli = runCli(['--port', '0', '--now', '2026-11-20T12:00:00Z', '--quiet'], {
        NODE_COMPILE_CACHE: cache,
        NODE_DEBUG_NATIVE: 'COMPILE_CACHE',
        ...env,
      })
      const { url } = await listening(cli)
      const response = await fetch(`${url}/v1/me`, { headers: { Authorization: 'Bearer sk_sandbox_all' } })
      expect((await json(response)).data.organization_id).toBe(ORG_1)
      cli.child.kill('SIGTERM')
      expect((await cli.exit(5_000)).code, cli.stderr()).toBe(0)
      return cli.stderr()
    }
    const filesIn = (folder: string) =>
      readdirSync(folder, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile())

    it(
      nodeHasCompileCache
        ? 'keeps the compiled command in NODE_COMPILE_CACHE, and the next start runs from it'
        : 'starts without a compile cache on Node 20, writing none',
      async () => {
        const cache = tempFolder('compile-cache')
        await serveOnce(cache)
        if (!nodeHasCompileCache) return void expect(filesIn(cache)).toEqual([])
        expect(filesIn(cache).length).toBeGreaterThan(0)
        expect(await serveOnce(cache)).toMatch(/V8 code cache for CommonJS \S*cli\.cjs was accepted/)
      },
    )

    it('writes none with NODE_DISABLE_COMPILE_CACHE=1', async () => {
      const off = tempFolder('compile-cache')
      await serveOnce(off, { NODE_DISABLE_COMPILE_CACHE: '1' })
      expect(filesIn(off)).toEqual([])
    })
  })

  it('exits 1 with a clear message when the port is in use', async () => {
    const taken = await startServer({ port: 0, quiet: true, now: NOW })
    try {
      const port = portOf(taken.url)
      const cli = runCli(['--port', String(port), '--now', '2026-11-20T12:00:00Z'])
      const { code } = await cli.exit(15_000)

      expect(code, cli.stderr()).toBe(1)
      expect(cli.stderr()).toMatch(/in use/i)
      expect(cli.stderr()).toContain(String(port))
      expect(cli.stderr(), 'a stack trace').not.toMatch(/^\s+at .+[(:]\d+/m)
      expect(cli.stdout()).not.toMatch(LISTENING)
    } finally {
      await taken.close()
    }
  })
})
