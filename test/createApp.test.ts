/**
 * `createApp(sandbox)`, listening on a port as its own example has it, answers what the command answers: the same
 * planes through the same entry (the console, the metrics, the control plane, the API, `/docs`, a session's root,
 * the 404), and one log line per request.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createSandbox, type SandboxWithHandlers } from '../src/index.js'
import { createApp } from '../src/server/createApp.js'
import { type RunningServer, startServer } from '../src/server/startServer.js'
import { NOW } from './support/transports.js'

const ALL = { Authorization: 'Bearer sk_sandbox_all' }

/** [what it is, path, headers]: one request to each thing the command serves. */
const REQUESTS: [string, string, Record<string, string>][] = [
  ['the console page', '/_sandbox/console/', {}],
  ['the console, to its folder', '/_sandbox/console', {}],
  ["a session's console", '/sessions/parity/_sandbox/console/', {}],
  ['the metrics', '/_sandbox/metrics', {}],
  ['a control route', '/_sandbox/requests?limit=1', {}],
  ['an API route', '/v1/calls?limit=2', ALL],
  ['an API route without a key', '/v1/me', {}],
  ['a session-prefixed API route', '/sessions/parity/v1/me', ALL],
  ['a bad session name', '/sessions/no%20way/v1/me', ALL],
  ['the OpenAPI document', '/openapi.json', {}],
  ['the reference', '/docs/', {}],
  ['the reference, to its folder', '/docs', {}],
  ['an unknown path', '/v2/calls', {}],
  ['an unknown control path', '/_sandbox/nothing', {}],
]

/** What must be the same from both: the status, the headers that say what the body is, and the body. */
async function seen(base: string, path: string, headers: Record<string, string>) {
  const response = await fetch(base + path, { headers, redirect: 'manual' })
  const text = await response.text()
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    location: response.headers.get('location'),
    hasRequestId: response.headers.has('x-request-id') || response.status === 301 || path.startsWith('/docs'),
    // Request ids are random, and the metrics count each server's own answers.
    body: path.endsWith('/metrics') ? text.includes('call_sandbox_requests_total') : text.replace(/req_[\w-]+/g, 'req'),
  }
}

describe('createApp(sandbox).listen(), beside the command', () => {
  let command: RunningServer
  let sandbox: SandboxWithHandlers
  let app: Server
  let appUrl: string
  const commandLines: string[] = []
  const appLines: string[] = []

  beforeAll(async () => {
    command = await startServer({ port: 0, now: NOW, quiet: false, log: (line) => commandLines.push(line) })
    sandbox = createSandbox({ now: NOW })
    await sandbox.ready
    app = createApp(sandbox, { log: (line) => appLines.push(line) }).listen(0, '127.0.0.1')
    await new Promise((listening) => app.once('listening', listening))
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`
  })

  afterAll(async () => {
    await command?.close()
    sandbox?.stop()
    sandbox?.sessions.stop()
    await new Promise((closed) => app?.close(closed))
  })

  it.each(REQUESTS)('answers %s (%s) as the command does', async (_what, path, headers) => {
    const fromCommand = await seen(command.url, path, headers)
    const fromApp = await seen(appUrl, path, headers)
    expect(fromApp).toEqual(fromCommand)
    expect(fromApp.hasRequestId).toBe(true)
  })

  it('serves the console page and the metrics, which an app of its own once answered 404', async () => {
    const page = await fetch(`${appUrl}/_sandbox/console/`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const metrics = await fetch(`${appUrl}/_sandbox/metrics`)
    expect(metrics.status).toBe(200)
    expect(await metrics.text()).toMatch(/call_sandbox_requests_total\{plane="api"/)
  })

  it('writes one log line per request, as the command does', async () => {
    const before = { app: appLines.length, command: commandLines.length }
    for (const [, path, headers] of REQUESTS) {
      await (await fetch(appUrl + path, { headers, redirect: 'manual' })).arrayBuffer()
      await (await fetch(command.url + path, { headers, redirect: 'manual' })).arrayBuffer()
    }
    // A line is written once its answer has gone out, a moment after the client has it.
    await vi.waitFor(() => expect(appLines.length - before.app).toBe(REQUESTS.length))
    await vi.waitFor(() => expect(commandLines.length - before.command).toBe(REQUESTS.length))
    const logged = appLines.slice(before.app).map((line) => line.split(' ').slice(0, 3).join(' '))
    expect(logged).toEqual(commandLines.slice(before.command).map((line) => line.split(' ').slice(0, 3).join(' ')))
    expect(logged[0]).toBe('GET /_sandbox/console/ 200')
  })
})

describe('createApp of a sandbox with a base URL', () => {
  it('answers below it, hands the rest to Express, and writes one log line a request', async () => {
    const lines: string[] = []
    const server = createServer()
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const sandbox = createSandbox({ now: NOW, baseUrl: `${origin}/api` })
    try {
      await sandbox.ready
      server.on('request', createApp(sandbox, { log: (line) => lines.push(line) }))
      const statuses = []
      for (const path of ['/api/v1/me', '/v1/me', '/api/_sandbox/console/', '/docs/'])
        statuses.push((await fetch(origin + path, { headers: ALL })).status)
      expect(statuses).toEqual([200, 404, 200, 200])
      await vi.waitFor(() => expect(lines).toHaveLength(4))
      expect(lines.map((line) => line.split(' ').slice(0, 3).join(' '))).toEqual([
        'GET /api/v1/me 200',
        'GET /v1/me 404',
        'GET /api/_sandbox/console/ 200',
        'GET /docs/ 200',
      ])
      // CORS judges the path below the base: the control plane's preflight from another origin is refused there
      // too, with no Access-Control-Allow-Origin; the API's is answered for any origin.
      const preflight = (path: string) =>
        fetch(origin + path, {
          method: 'OPTIONS',
          headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST' },
        })
      const control = await preflight('/api/_sandbox/reset')
      expect(control.status).toBe(403)
      expect(control.headers.get('access-control-allow-origin')).toBeNull()
      const api = await preflight('/api/v1/contacts')
      expect(api.status).toBe(204)
      expect(api.headers.get('access-control-allow-origin')).toBe('*')
    } finally {
      sandbox.stop()
      sandbox.sessions.stop()
      await new Promise((closed) => server.close(closed))
    }
  })
})

describe('createApp behind middleware that wraps writeHead', () => {
  it('answers as it does alone, when the wrapper reads headers as an object (on-headers before 1.1.0)', async () => {
    const sandbox = createSandbox({ now: NOW })
    const app = createApp(sandbox, { quiet: true })
    const server = createServer((request, response) => {
      const writeHead = response.writeHead
      // As on-headers 1.0 did: each key of the headers given set, then the status written.
      response.writeHead = function (this: typeof response, status: number, headers?: unknown) {
        if (headers && typeof headers === 'object')
          for (const key of Object.keys(headers)) this.setHeader(key, (headers as Record<string, string>)[key]!)
        return writeHead.call(this, status)
      } as typeof response.writeHead
      app(request, response)
    })
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
    try {
      await sandbox.ready
      const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/calls?limit=2`, {
        headers: ALL,
      })
      expect(answer.status).toBe(200)
      expect((await answer.json()).data).toHaveLength(2)
      expect(answer.headers.get('access-control-allow-origin')).toBe('*')
      expect(answer.headers.get('x-request-id')).toMatch(/^req_/)
      expect(answer.headers.get('0')).toBeNull()
    } finally {
      sandbox.stop()
      sandbox.sessions.stop()
      await new Promise((closed) => server.close(closed))
    }
  })
})
