/**
 * The control plane's guard beyond the headers a client chooses: without an admin token, the connection's peer must
 * be this machine (no header fakes it); an allowed page is named as browsers serialise its origin; the command takes
 * its admin token from the environment, out of sight of `ps`.
 */
import { request as sendRequest, type Server } from 'node:http'
import type { Socket } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ErrorEnvelope } from '../src/index.js'
import { controlAccess } from '../src/server/controlAccess.js'
import { killChildren, listening, runCli } from './support/cli.js'
import { ENTRIES, type Entry } from './support/entries.js'
import { NOW } from './support/transports.js'

const APP_PAGE = 'http://localhost:5173'
/** An address of another machine (TEST-NET-1, RFC 5737), as a LAN client's connection would show. */
const OTHER_MACHINE = '192.0.2.7'

/** What the guard reads of a request: its peer address and headers. */
function requestFrom(peer: string | undefined, headers: Record<string, string> = {}): [string | undefined, Headers] {
  return [peer, new Headers(headers)]
}

describe('the guard without an admin token, by the peer address', () => {
  const access = controlAccess(undefined, { allowedHosts: 'all' })

  it.each([OTHER_MACHINE, '10.0.0.7', '::ffff:192.168.1.5', 'fe80::1', '2001:db8::1', '::', undefined])(
    'refuses a peer at %s with 403 client_not_allowed, whatever the Host says, naming the admin token',
    (peer) => {
      for (const host of ['localhost', '127.0.0.1:4010', '[::1]']) {
        const refusal = access.refusal(...requestFrom(peer, { host }), '/_sandbox/reset')
        expect(refusal).toMatchObject({ code: 'client_not_allowed', status: 403, type: 'permission_error' })
        expect(refusal?.message).toContain('CALL_SANDBOX_ADMIN_TOKEN or --admin-token')
      }
    },
  )

  it.each(['127.0.0.1', '127.9.8.7', '::1', '::ffff:127.0.0.1', '::FFFF:127.0.0.2'])(
    'lets a peer at %s (this machine) through',
    (peer) => {
      expect(access.refusal(...requestFrom(peer, { host: 'localhost' }), '/_sandbox/reset')).toBeUndefined()
    },
  )

  it.each(['/_sandbox/live', '/_sandbox/ready', '/sessions/ci-1/_sandbox/ready', '/v1/me', '/openapi.json'])(
    'leaves %s open to another machine',
    (path) => {
      expect(access.refusal(...requestFrom(OTHER_MACHINE), path)).toBeUndefined()
    },
  )

  it('guards a session’s control plane too', () => {
    const refusal = access.refusal(...requestFrom(OTHER_MACHINE), '/sessions/ci-1/_sandbox/requests')
    expect(refusal?.code).toBe('client_not_allowed')
  })

  it('leaves the peer to the token when there is one', () => {
    expect(controlAccess('admin-s3cret').refusal(...requestFrom(OTHER_MACHINE), '/_sandbox/reset')).toBeUndefined()
  })
})

/** Every connection the server takes from now on shows `address` as its peer's, as one from that machine would. */
function peersShownAs(server: Server, address: string): void {
  server.prependListener('connection', (socket: Socket) => {
    Object.defineProperty(socket, 'remoteAddress', { value: address, configurable: true })
  })
}

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: any
}

function send(
  url: string,
  { method = 'GET', path, headers = {} }: { method?: string; path: string; headers?: Record<string, string> },
): Promise<Answer> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const sent = sendRequest({ host: hostname, port, method, path, headers, agent: false }, (response) => {
      let text = ''
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
      response.on('end', () =>
        resolve({ status: response.statusCode!, headers: response.headers, body: text ? JSON.parse(text) : text }),
      )
    })
    sent.on('error', reject)
    sent.end()
  })
}

describe.each(ENTRIES)('$name, reached from another machine without an admin token', ({ start }) => {
  let entry: Entry
  beforeAll(async () => {
    // As `createApp(sandbox).listen(4010)` would be: on every interface, its control plane reached from the LAN.
    entry = await start({ allowedHosts: 'all' })
    peersShownAs(entry.server, OTHER_MACHINE)
  })
  afterAll(() => entry?.close())

  it('refuses its control plane with 403 client_not_allowed, whatever the Host, its preflights too', async () => {
    for (const Host of ['localhost', '127.0.0.1', 'sandbox.lan']) {
      const answer = await send(entry.url, { method: 'POST', path: '/_sandbox/clock', headers: { Host } })
      expect(answer.status, JSON.stringify(answer.body)).toBe(403)
      const { error, meta } = ErrorEnvelope.strict().parse(answer.body)
      expect(error.code).toBe('client_not_allowed')
      expect(error.message).toContain(`came from ${OTHER_MACHINE}`)
      expect(answer.headers['x-request-id']).toBe(meta.request_id)
    }
    const preflight = await send(entry.url, {
      method: 'OPTIONS',
      path: '/_sandbox/reset',
      headers: { Origin: APP_PAGE, 'Access-Control-Request-Method': 'POST' },
    })
    expect(preflight.status).toBe(403)
    expect(preflight.body.error.code).toBe('client_not_allowed')
  })

  it('still answers the API and the probes', async () => {
    const me = await send(entry.url, { path: '/v1/me', headers: { Authorization: 'Bearer sk_sandbox_all' } })
    expect(me.status).toBe(200)
    for (const path of ['/_sandbox/live', '/_sandbox/ready']) expect((await send(entry.url, { path })).status).toBe(200)
  })
})

describe.each(ENTRIES)('$name, with an allowed origin', ({ start }) => {
  let entry: Entry
  beforeAll(async () => {
    entry = await start({ allowedOrigins: [APP_PAGE] })
  })
  afterAll(() => entry?.close())

  it.each(['HTTP://LOCALHOST:5173/', 'http://localhost:5173', 'http://localhost:5173/app'])(
    'names the origin as browsers serialise it, not as sent (%s)',
    async (Origin) => {
      const answer = await send(entry.url, { method: 'POST', path: '/_sandbox/reset', headers: { Origin } })
      expect(answer.status).toBe(200)
      expect(answer.headers['access-control-allow-origin']).toBe(APP_PAGE)
      const preflight = await send(entry.url, {
        method: 'OPTIONS',
        path: '/_sandbox/reset',
        headers: { Origin, 'Access-Control-Request-Method': 'POST' },
      })
      expect(preflight.status).toBe(204)
      expect(preflight.headers['access-control-allow-origin']).toBe(APP_PAGE)
    },
  )
})

describe('the command, its admin token in CALL_SANDBOX_ADMIN_TOKEN (built: npm test builds it first)', () => {
  const TOKEN = 'admin-from-the-environment-7f3a'
  afterEach(() => killChildren())

  it('guards the control plane with it, though no argument names it', async () => {
    const cli = runCli(['--port', '0', '--now', NOW, '--quiet'], { CALL_SANDBOX_ADMIN_TOKEN: TOKEN })
    const { url } = await listening(cli)
    expect(cli.stdout()).toContain('with the admin token')
    expect(cli.child.spawnargs.join(' ')).not.toContain(TOKEN)
    expect((await fetch(`${url}/_sandbox/health`)).status).toBe(401)
    const health = await fetch(`${url}/_sandbox/health`, { headers: { Authorization: `Bearer ${TOKEN}` } })
    expect(health.status).toBe(200)
  })

  it('is refused, as the flag is, when it is no secret', async () => {
    const cli = runCli(['--port', '0'], { CALL_SANDBOX_ADMIN_TOKEN: 'sk_sandbox_all' })
    expect((await cli.exit()).code).toBe(1)
    expect(cli.stderr()).toContain('built-in key')
  })

  it('is named in --help', async () => {
    const cli = runCli(['--help'])
    await cli.exit()
    expect(cli.stdout().replace(/\s+/g, ' ')).toContain('(env: CALL_SANDBOX_ADMIN_TOKEN)')
  })
})
