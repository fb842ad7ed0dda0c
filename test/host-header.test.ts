/**
 * What a server entry answers a Host, or a request target, that makes no plain URL: one 400 in the envelope that
 * quotes none of it, never a 500 (a fetch Request refuses a URL with a password and the error quoted it), for the
 * command's server and for `createApp` mounted in an Express app of one's own. Raw sockets: fetch sends one Host, its
 * own.
 */
import { connect } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { ErrorEnvelope } from '../src/index.js'
import { ENTRIES, type Entry } from './support/entries.js'

const SECRET = 'sk_live_HOSTLEAK99999wxyz'

interface RawAnswer {
  status: number
  head: string
  text: string
}

/** One request written as given on a connection of its own, and the whole answer once the server closes it. */
function raw(url: string, request: string): Promise<RawAnswer> {
  const { port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.end(request))
    let text = ''
    socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
    socket.on('error', reject)
    socket.on('close', () => {
      const head = text.slice(0, text.indexOf('\r\n\r\n')).toLowerCase()
      resolve({ status: Number(head.split(' ')[1]), head, text })
    })
  })
}

/** A request's head with these Host lines, closing the connection after it. */
function head(target: string, hosts: string[], method = 'GET'): string {
  const lines = hosts.map((host) => `Host: ${host}\r\n`).join('')
  return `${method} ${target} HTTP/1.1\r\n${lines}Authorization: Bearer sk_sandbox_all\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`
}

describe.each(ENTRIES)('$name', ({ start }) => {
  let entry: Entry
  let port: string
  beforeAll(async () => {
    entry = await start()
    port = new URL(entry.url).port
  })
  afterAll(() => entry?.close())
  const errors = vi.spyOn(console, 'error')
  afterEach(() => errors.mockClear())

  it.each([
    { what: 'user information with a password', host: () => `u:${SECRET}@127.0.0.1:${port}`, says: 'user information' },
    { what: 'user information alone', host: () => `${SECRET}@127.0.0.1`, says: 'user information' },
    { what: 'a path', host: () => `127.0.0.1:${port}/${SECRET}`, says: 'a path' },
    { what: 'a query', host: () => `127.0.0.1?${SECRET}`, says: 'a path, query' },
    { what: 'white space inside', host: () => `127.0.0.1 ${SECRET}`, says: 'white space' },
    { what: 'a bracket', host: () => `exa[mple${SECRET}`, says: 'a character no host name has' },
    { what: 'a port past 65535', host: () => '127.0.0.1:99999', says: 'past 65535' },
    { what: 'nothing', host: () => '', says: 'nothing' },
  ])(
    'refuses a Host with $what with 400 invalid_parameter (param Host), quoting none of it',
    async ({ host, says }) => {
      for (const path of ['/v1/me', '/_sandbox/health', '/docs/', '/nowhere']) {
        const answer = await raw(entry.url, head(path, [host()]))
        expect(answer.status, answer.text).toBe(400)
        const { error } = ErrorEnvelope.strict().parse(JSON.parse(answer.text.slice(answer.text.indexOf('{'))))
        expect(error).toMatchObject({ code: 'invalid_parameter', param: 'Host' })
        expect(error.message).toContain(says)
        expect(answer.text).not.toContain(SECRET)
      }
      expect(errors).not.toHaveBeenCalled()
    },
  )

  it.each([
    ['the same name twice', ['127.0.0.1', '127.0.0.1']],
    ['a loopback name, then another', ['127.0.0.1', 'attacker.example']],
    ['another name, then a loopback one', ['attacker.example', 'localhost']],
  ])('refuses two Host headers (%s) with 400, whatever the path (RFC 9112, 3.2)', async (_what, hosts) => {
    for (const [method, path] of [
      ['POST', '/_sandbox/reset'],
      ['GET', '/v1/me'],
      ['GET', '/docs/'],
    ] as const) {
      const answer = await raw(entry.url, head(path, hosts, method))
      expect(answer.status, answer.text).toBe(400)
      const { error } = JSON.parse(answer.text.slice(answer.text.indexOf('{')))
      expect(error).toMatchObject({ code: 'invalid_parameter', param: 'Host' })
      expect(error.message).toContain('2 Host headers')
    }
  })

  it('refuses a request target with user information (absolute form) with 400, quoting none of it', async () => {
    const answer = await raw(entry.url, head(`http://u:${SECRET}@127.0.0.1:${port}/v1/me`, ['127.0.0.1']))
    expect(answer.status, answer.text).toBe(400)
    expect(JSON.parse(answer.text.slice(answer.text.indexOf('{'))).error.code).toBe('invalid_parameter')
    expect(answer.text).not.toContain(SECRET)
    expect(errors).not.toHaveBeenCalled()
  })

  it('refuses a request target //user:password@host/… (scheme-relative) with 400, quoting none of it', async () => {
    for (const path of ['/v1/me', '/_sandbox/reset']) {
      const answer = await raw(entry.url, head(`//u:${SECRET}@127.0.0.1:${port}${path}`, ['127.0.0.1']))
      expect(answer.status, answer.text).toBe(400)
      expect(JSON.parse(answer.text.slice(answer.text.indexOf('{'))).error.code).toBe('invalid_parameter')
      expect(answer.text).not.toContain(SECRET)
    }
  })

  it('refuses TRACE to the control plane from a foreign Host as every other method, and answers 405 to its own', async () => {
    const foreign = await raw(entry.url, head('/_sandbox/reset', ['evil.example'], 'TRACE'))
    expect(foreign.status, foreign.text).toBe(403)
    expect(JSON.parse(foreign.text.slice(foreign.text.indexOf('{'))).error.code).toBe('host_not_allowed')
    const own = await raw(entry.url, head('/_sandbox/reset', [`127.0.0.1:${port}`], 'TRACE'))
    expect(own.status, own.text).toBe(405)
    expect(own.head).toContain('allow: post')
  })

  it.each([
    () => `127.0.0.1:${port}`,
    () => `LOCALHOST:${port}`,
    () => `[::1]:${port}`,
    () => 'sandbox.localhost.',
    () => '127.0.0.1:',
  ])('still answers a plain Host (%s)', async (host) => {
    const answer = await raw(entry.url, head('/_sandbox/health', [host()]))
    expect(answer.status, answer.text).toBe(200)
  })

  it('takes an absolute-form target without user information', async () => {
    const answer = await raw(entry.url, head(`http://127.0.0.1:${port}/v1/me`, ['127.0.0.1']))
    expect(answer.status, answer.text).toBe(200)
  })
})
