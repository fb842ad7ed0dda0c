/**
 * Who may call the standalone server's control plane: without an admin token, this machine's own names and the
 * sandbox's own pages, and the hosts and origins given (`allowedHosts`, `allowedOrigins`); with one, whoever sends
 * it. Raw headers over node:http, since fetch will not send Host or Sec-Fetch-Site; the same table for the command's
 * server and for `createApp` mounted in an Express app of one's own.
 */
import { request } from 'node:http'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { answer, createSandbox, ErrorEnvelope } from '../src/index.js'
import { parseAllowedHosts, parseAllowedOrigins } from '../src/server/controlAccess.js'
import { startServer } from '../src/server/startServer.js'
import { killChildren, listening, runCli } from './support/cli.js'
import { commandServer, ENTRIES, type Entry } from './support/entries.js'
import { NOW } from './support/transports.js'

const OTHER_PAGE = 'http://evil.example'
const APP_PAGE = 'http://localhost:5173'
const KEY = 'Bearer sk_sandbox_all'

interface Sent {
  method?: string
  path: string
  headers?: Record<string, string>
  body?: string
}

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: any
}

/** One request on a connection of its own, its headers exactly as given (a Host of another name too). */
function send(url: string, { method = 'GET', path, headers = {}, body }: Sent): Promise<Answer> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const sent = request({ host: hostname, port, method, path, headers, agent: false }, (response) => {
      let text = ''
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
      response.on('end', () => {
        let parsed: unknown = text
        try {
          parsed = JSON.parse(text)
        } catch {}
        resolve({ status: response.statusCode!, headers: response.headers, body: parsed })
      })
    })
    sent.on('error', reject)
    sent.end(body)
  })
}

/** A page of another origin, by what a browser sends with its request. */
const FROM_OTHER_PAGE = { Origin: OTHER_PAGE, 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'cors' }

const started: Entry[] = []
afterEach(async () => {
  await Promise.all(started.splice(0).map((entry) => entry.close()))
})

describe.each(ENTRIES)('$name, without an admin token', ({ start }) => {
  let entry: Entry
  beforeAll(async () => {
    entry = await start()
  })
  afterAll(() => entry?.close())

  const refused: (Sent & { what: string })[] = [
    { what: 'a page of another origin reading the journal', path: '/_sandbox/requests', headers: FROM_OTHER_PAGE },
    {
      what: 'a simple POST without a body (a fetch, no preflight)',
      method: 'POST',
      path: '/_sandbox/reset',
      headers: FROM_OTHER_PAGE,
    },
    {
      what: 'a simple POST of text/plain',
      method: 'POST',
      path: '/_sandbox/clock',
      headers: { ...FROM_OTHER_PAGE, 'Content-Type': 'text/plain' },
      body: '{"advance_seconds":3600}',
    },
    {
      what: 'a form posted from another site (no Origin from an old browser)',
      method: 'POST',
      path: '/_sandbox/reset',
      headers: { 'Sec-Fetch-Site': 'cross-site', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'scenario=empty',
    },
    {
      what: 'an Origin alone, as an older browser sends it',
      method: 'POST',
      path: '/_sandbox/reset',
      headers: { Origin: OTHER_PAGE },
    },
    {
      what: 'a page of this machine on another port (same site, another origin)',
      path: '/_sandbox/requests',
      headers: { Origin: APP_PAGE, 'Sec-Fetch-Site': 'same-site' },
    },
    { what: 'a sandboxed page (Origin: null)', path: '/_sandbox/requests', headers: { Origin: 'null' } },
    {
      what: "a page of another origin reaching a session's control plane",
      method: 'POST',
      path: '/sessions/made-by-a-page/_sandbox/reset',
      headers: FROM_OTHER_PAGE,
    },
    {
      what: 'a page of another origin making a session',
      method: 'POST',
      path: '/_sandbox/sessions',
      headers: { ...FROM_OTHER_PAGE, 'Content-Type': 'text/plain' },
      body: '{"name":"made-by-a-page"}',
    },
    {
      what: 'a frame of the console in a page of another site',
      path: '/_sandbox/console/',
      headers: { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'iframe' },
    },
  ]

  it.each(refused)('refuses $what with 403 origin_not_allowed, naming the flag', async (sent) => {
    const answer = await send(entry.url, sent)
    expect(answer.status, JSON.stringify(answer.body)).toBe(403)
    const { error, meta } = ErrorEnvelope.strict().parse(answer.body)
    expect(error).toMatchObject({ code: 'origin_not_allowed', type: 'permission_error', param: 'Origin' })
    expect(error.message).toContain('--allowed-origins')
    expect(answer.headers['x-request-id']).toBe(meta.request_id)
    expect(answer.headers['access-control-allow-origin']).toBeUndefined()
  })

  it.each<{ what: string; headers: Record<string, string> }>([
    { what: 'a name rebound to this machine', headers: { Host: 'attacker.example' } },
    {
      what: "a rebound name's own page (same origin to the browser)",
      headers: {
        Host: 'attacker.example:4010',
        Origin: 'http://attacker.example:4010',
        'Sec-Fetch-Site': 'same-origin',
      },
    },
    { what: 'a name ending in localhost that is not under it', headers: { Host: 'evil-localhost' } },
    { what: 'an address of another machine', headers: { Host: '10.0.0.7' } },
  ])('refuses $what with 403 host_not_allowed, naming the flag', async ({ headers }) => {
    const answer = await send(entry.url, { method: 'POST', path: '/_sandbox/reset', headers })
    expect(answer.status, JSON.stringify(answer.body)).toBe(403)
    expect(answer.body.error).toMatchObject({ code: 'host_not_allowed', param: 'Host' })
    expect(answer.body.error.message).toContain(`--allowed-hosts ${new URL(`http://${headers.Host}`).hostname} `)
  })

  it('leaves the world as it was: no reset, no clock moved, no session made, nothing read', async () => {
    const made = await send(entry.url, {
      method: 'POST',
      path: '/v1/contacts',
      headers: { Authorization: KEY, 'Content-Type': 'application/json' },
      body: '{"phone":"+14155550171"}',
    })
    expect(made.status).toBe(201)
    for (const sent of refused) expect((await send(entry.url, sent)).body.data).toBeUndefined()
    const contact = await send(entry.url, {
      path: `/v1/contacts/${made.body.data.id}`,
      headers: { Authorization: KEY },
    })
    expect(contact.status).toBe(200)
    expect((await send(entry.url, { path: '/_sandbox/clock' })).body.data.now).toBe(NOW)
    const sessions = await send(entry.url, { path: '/_sandbox/sessions' })
    expect(sessions.body.data.map(({ name }: { name: string }) => name)).not.toContain('made-by-a-page')
    const health = await send(entry.url, { path: '/_sandbox/health' })
    expect(health.body.data.scenario).toBe('default')
  })

  type Headers = Record<string, string>
  it.each<{ what: string; headers: Headers | ((url: URL) => Headers) }>([
    { what: 'curl (no Origin, no Sec-Fetch-Site)', headers: {} },
    { what: 'its own page (the console)', headers: (url) => ({ Origin: url.origin, 'Sec-Fetch-Site': 'same-origin' }) },
    { what: 'the address bar (Sec-Fetch-Site: none)', headers: { 'Sec-Fetch-Site': 'none' } },
    { what: 'Host localhost', headers: (url) => ({ Host: `localhost:${url.port}` }) },
    { what: 'Host [::1]', headers: (url) => ({ Host: `[::1]:${url.port}` }) },
    { what: 'Host 127.1.2.3', headers: { Host: '127.1.2.3' } },
    { what: 'a name under .localhost', headers: { Host: 'sandbox.localhost' } },
  ])('answers $what', async ({ headers }) => {
    const given = typeof headers === 'function' ? headers(new URL(entry.url)) : headers
    const answer = await send(entry.url, { path: '/_sandbox/requests?limit=1', headers: given })
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    expect(answer.headers['access-control-allow-origin']).toBeUndefined()
    expect(answer.headers.vary).toContain('Origin')
  })

  it.each(['/_sandbox/live', '/_sandbox/ready', '/sessions/ci-1/_sandbox/ready'])(
    'answers the probe %s whatever the host or page, with nothing for the page to read',
    async (path) => {
      const answer = await send(entry.url, { path, headers: { ...FROM_OTHER_PAGE, Host: 'attacker.example' } })
      expect(answer.status).toBe(200)
      expect(answer.headers['access-control-allow-origin']).toBeUndefined()
    },
  )

  it.each(['/v1/me', '/openapi.json', '/sessions/ci-1/v1/me'])('lets any page read %s (Origin: *)', async (path) => {
    const answer = await send(entry.url, { path, headers: { ...FROM_OTHER_PAGE, Authorization: KEY } })
    expect(answer.status).toBe(200)
    expect(answer.headers['access-control-allow-origin']).toBe('*')
  })

  it('refuses a preflight to the control plane from a page of another origin, and answers one to the API', async () => {
    const preflight = (path: string) =>
      send(entry.url, {
        method: 'OPTIONS',
        path,
        headers: {
          ...FROM_OTHER_PAGE,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type',
        },
      })
    const control = await preflight('/_sandbox/reset')
    expect(control.status).toBe(403)
    expect(control.body.error.code).toBe('origin_not_allowed')
    expect(control.headers['access-control-allow-origin']).toBeUndefined()
    expect(control.headers['access-control-allow-methods']).toBeUndefined()
    const api = await preflight('/v1/contacts')
    expect(api.status).toBe(204)
    expect(api.headers['access-control-allow-origin']).toBe('*')
    expect(api.headers['access-control-allow-methods']).toBe('GET,POST')
  })
})

describe.each(ENTRIES)('$name, with the hosts and origins it allows', ({ start }) => {
  let entry: Entry
  beforeAll(async () => {
    entry = await start({ allowedOrigins: [APP_PAGE], allowedHosts: ['sandbox.test', '.dev.test'] })
  })
  afterAll(() => entry?.close())

  it('lets an allowed page reset the world and read the answer (its origin echoed, Vary: Origin)', async () => {
    const answer = await send(entry.url, {
      method: 'POST',
      path: '/_sandbox/reset',
      headers: { Origin: APP_PAGE, 'Sec-Fetch-Site': 'same-site' },
    })
    expect(answer.status).toBe(200)
    expect(answer.headers['access-control-allow-origin']).toBe(APP_PAGE)
    expect(answer.headers['access-control-expose-headers']).toContain('X-Request-Id')
    expect(answer.headers.vary).toContain('Origin')
  })

  it('answers an allowed page its preflight, with the methods of the path and the headers asked for', async () => {
    const answer = await send(entry.url, {
      method: 'OPTIONS',
      path: '/sessions/ci-1/_sandbox/calls',
      headers: {
        Origin: APP_PAGE,
        'Sec-Fetch-Site': 'same-site',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type',
      },
    })
    expect(answer.status).toBe(204)
    expect(answer.headers['access-control-allow-origin']).toBe(APP_PAGE)
    expect(answer.headers['access-control-allow-methods']).toBe('POST')
    expect(answer.headers['access-control-allow-headers']).toBe('authorization, content-type')
    expect(answer.headers.vary).toContain('Origin')
  })

  it('still refuses any other page', async () => {
    const answer = await send(entry.url, { path: '/_sandbox/requests', headers: FROM_OTHER_PAGE })
    expect(answer.status).toBe(403)
    expect(answer.body.error.message).toContain(`--allowed-origins ${OTHER_PAGE}`)
  })

  it.each([
    ['sandbox.test', 200],
    ['SANDBOX.test:8080', 200],
    ['dev.test', 200],
    ['a.b.dev.test', 200],
    ['sub.sandbox.test', 403],
    ['notdev.test', 403],
  ])('Host %s: %i', async (host, status) => {
    const answer = await send(entry.url, { path: '/_sandbox/health', headers: { Host: host } })
    expect(answer.status, JSON.stringify(answer.body)).toBe(status)
  })
})

describe('allowed hosts: all', () => {
  it('turns the check of Host off, and keeps the check of Origin', async () => {
    const entry = await commandServer({ allowedHosts: 'all' })
    started.push(entry)
    expect((await send(entry.url, { path: '/_sandbox/health', headers: { Host: 'attacker.example' } })).status).toBe(
      200,
    )
    expect((await send(entry.url, { path: '/_sandbox/health', headers: FROM_OTHER_PAGE })).status).toBe(403)
  })
})

describe.each(ENTRIES)('$name, with an admin token', ({ start }) => {
  let entry: Entry
  beforeAll(async () => {
    entry = await start({ adminToken: 'admin-s3cret' })
  })
  afterAll(() => entry?.close())

  it('takes the token from any host and any page, and lets the page read the answer', async () => {
    const answer = await send(entry.url, {
      path: '/_sandbox/requests?limit=1',
      headers: { ...FROM_OTHER_PAGE, Host: 'attacker.example', Authorization: 'Bearer admin-s3cret' },
    })
    expect(answer.status).toBe(200)
    expect(answer.headers['access-control-allow-origin']).toBe('*')
  })

  it('refuses a page without the token with 401, before the endpoint: the world is not reset', async () => {
    const answer = await send(entry.url, { method: 'POST', path: '/_sandbox/reset', headers: FROM_OTHER_PAGE })
    expect(answer.status).toBe(401)
    expect(answer.body.error.code).toBe('unauthorized')
  })

  it("answers any page's preflight, which a request carrying the token needs", async () => {
    const answer = await send(entry.url, {
      method: 'OPTIONS',
      path: '/_sandbox/reset',
      headers: {
        ...FROM_OTHER_PAGE,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization',
      },
    })
    expect(answer.status).toBe(204)
    expect(answer.headers['access-control-allow-origin']).toBe('*')
    expect(answer.headers['access-control-allow-headers']).toBe('authorization')
  })
})

describe('the lists given', () => {
  it.each([
    ['host', 'http://sandbox.test', 'a host name'],
    ['host', 'sandbox.test:8080', 'a host name'],
    ['host', 'true', 'or all'],
    ['host', ' , ', 'a comma-separated list'],
    ['origin', '*', '--admin-token'],
    ['origin', 'localhost:5173', "a page's scheme, host and port"],
    ['origin', 'http://localhost:5173/app', "a page's scheme, host and port"],
    ['origin', 'file:///tmp/page.html', "a page's scheme, host and port"],
  ])('refuses the allowed %s %j, saying what it takes (%s)', (kind, text, message) => {
    expect(() => (kind === 'host' ? parseAllowedHosts : parseAllowedOrigins)(text)).toThrow(message)
  })

  it('takes origins as browsers write them, and host names with a leading dot', () => {
    expect(parseAllowedOrigins('http://localhost:5173, https://app.example.test/')).toEqual([
      'http://localhost:5173',
      'https://app.example.test',
    ])
    expect(parseAllowedHosts('sandbox.test,.dev.test')).toEqual(['sandbox.test', '.dev.test'])
    expect(parseAllowedHosts('all')).toBe('all')
  })

  it('refuses allowed origins beside an admin token, which is then the guard', async () => {
    await expect(
      startServer({ port: 0, quiet: true, adminToken: 'admin-s3cret', allowedOrigins: [APP_PAGE] }),
    ).rejects.toThrow('the token is what the control plane checks')
  })
})

describe('the command (built: npm test builds it first)', () => {
  afterEach(() => killChildren())

  it('lets the origins of --allowed-origins in, and says so at start-up', async () => {
    const cli = runCli(['--port', '0', '--now', NOW, '--quiet', '--allowed-origins', APP_PAGE])
    const { url } = await listening(cli)
    expect(cli.stdout()).toContain(`curl, the console and pages of ${APP_PAGE}`)
    const allowed = await send(url, { method: 'POST', path: '/_sandbox/reset', headers: { Origin: APP_PAGE } })
    expect(allowed.status).toBe(200)
    expect(allowed.headers['access-control-allow-origin']).toBe(APP_PAGE)
    expect((await send(url, { method: 'POST', path: '/_sandbox/reset', headers: FROM_OTHER_PAGE })).status).toBe(403)
  })

  it.each([
    ['--allowed-origins', '*', '--admin-token'],
    ['--allowed-hosts', 'http://sandbox.test', 'a host name'],
  ])('refuses %s %s, saying what it takes', async (flag, value, message) => {
    const cli = runCli(['--port', '0', flag, value])
    expect((await cli.exit()).code).toBe(1)
    expect(cli.stderr()).toContain(message)
  })
})

describe('in process', () => {
  it('answers the control plane whatever the Origin: there is no other origin there', async () => {
    const sandbox = createSandbox({ now: NOW })
    const response = await answer(
      sandbox,
      new Request('https://api.example.com/_sandbox/reset', { method: 'POST', headers: { Origin: OTHER_PAGE } }),
    )
    expect(response?.status).toBe(200)
    sandbox.stop()
  })
})
