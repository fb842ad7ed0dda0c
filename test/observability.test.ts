/**
 * What the standalone server shows the machines that run it: Prometheus
 * metrics, a JSON request log, and liveness apart from readiness.
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { type RunningServer, type ServerOptions, startServer } from '../src/server/startServer.js'
import { killChildren, listening, runCli } from './support/cli.js'
import { tempFolder } from './support/tempFolder.js'
import { NOW } from './support/transports.js'
import { defaultOrganizations } from '../src/seed/fixtures.js'

const AUTH = { Authorization: 'Bearer sk_sandbox_all' }
const running: RunningServer[] = []

async function start(options: ServerOptions = {}): Promise<RunningServer> {
  const server = await startServer({ port: 0, quiet: true, now: NOW, ...options })
  running.push(server)
  return server
}

afterEach(async () => {
  killChildren()
  await Promise.all(running.splice(0).map((server) => server.close()))
})

/** The value of one sample of the metrics' text, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`)
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue
    if (wanted.every((pair) => line.includes(pair))) return Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return undefined
}

describe('GET /_sandbox/metrics', () => {
  it('is not there with --no-metrics, and the start-up banner does not name it', async () => {
    const cli = runCli(['--port', '0', '--no-metrics'])
    const { url } = await listening(cli)
    expect(cli.stdout()).toContain('/_sandbox/console/')
    expect(cli.stdout()).not.toContain('metrics')
    expect((await fetch(`${url}/_sandbox/metrics`)).status).toBe(404)
    const withMetrics = runCli(['--port', '0'])
    expect(await withMetrics.waitForOutput((out) => out.includes('/_sandbox/metrics'), 'the metrics URL')).toMatch(
      /; metrics: http:\/\/127\.0\.0\.1:\d+\/_sandbox\/metrics/,
    )
  })

  it('counts answers by plane, endpoint, status and session, and times them, in Prometheus text', async () => {
    const server = await start()
    await fetch(`${server.url}/v1/calls?limit=1`, { headers: AUTH })
    await fetch(`${server.url}/v1/calls?limit=1`, { headers: AUTH })
    await fetch(`${server.url}/v1/calls/nope`, { headers: AUTH })
    await fetch(`${server.url}/sessions/ci-1/v1/me`)
    await fetch(`${server.url}/v1/nowhere`, { headers: AUTH })
    const response = await fetch(`${server.url}/_sandbox/metrics`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = await response.text()
    const answers = (labels: Record<string, string>) => sample(text, 'call_sandbox_requests_total', labels)
    expect(answers({ endpoint: 'GET /v1/calls', status: '200', session: 'default' })).toBe(2)
    expect(answers({ endpoint: 'GET /v1/calls/:call_id', status: '400' })).toBe(1)
    expect(answers({ endpoint: 'GET /v1/me', status: '401', session: 'ci-1' })).toBe(1)
    expect(answers({ endpoint: '(none)', status: '404' })).toBe(1)
    expect(sample(text, 'call_sandbox_request_duration_seconds_count', { plane: 'api' })).toBe(5)
    expect(sample(text, 'call_sandbox_sessions_in_memory')).toBe(2)
    expect(sample(text, 'call_sandbox_writes', { session: 'default' })).toBe(0)
    expect(sample(text, 'call_sandbox_store_errors_total')).toBe(0)

    // Answers are added up as they come between scrapes: none counted twice, none lost.
    await fetch(`${server.url}/v1/calls?limit=1`, { headers: AUTH })
    const again = await (await fetch(`${server.url}/_sandbox/metrics`)).text()
    expect(sample(again, 'call_sandbox_requests_total', { endpoint: 'GET /v1/calls', session: 'default' })).toBe(3)
    expect(sample(again, 'call_sandbox_requests_total', { endpoint: 'GET /v1/me', session: 'ci-1' })).toBe(1)
    const thrice = await (await fetch(`${server.url}/_sandbox/metrics`)).text()
    expect(sample(thrice, 'call_sandbox_requests_total', { endpoint: 'GET /v1/calls', session: 'default' })).toBe(3)
  })

  it('keeps a bounded number of series after 2,000 session names: 100 of their own, the rest (other)', {
    timeout: 120_000,
  }, async () => {
    // Organizations without calls: each new name seeds a world, in a few milliseconds.
    const organizations = defaultOrganizations.map((organization) => ({ ...organization, calls: 0 }))
    const server = await start({ organizations, maxSessions: 10 })
    let next = 0
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < 2_000) await (await fetch(`${server.url}/sessions/name-${next++}/v1/me`)).arrayBuffer()
      }),
    )
    const text = await (await fetch(`${server.url}/_sandbox/metrics`)).text()
    const sessions = new Set([...text.matchAll(/session="([^"]*)"/g)].map(([, name]) => name!))
    expect(sessions.size).toBeLessThanOrEqual(100 + 2)
    expect(sessions).toContain('(other)')
    expect(sample(text, 'call_sandbox_requests_total', { session: '(other)' })).toBe(2_000 - 100)
    expect(sample(text, 'call_sandbox_sessions')).toBe(2_000)
    expect(text.length).toBeLessThan(48 * 1024)

    // An ended session's series go, and its place is the next new name's.
    const labelled = [...sessions].find((name) => name.startsWith('name-'))!
    expect((await fetch(`${server.url}/_sandbox/sessions/${labelled}`, { method: 'DELETE' })).status).toBe(200)
    await (await fetch(`${server.url}/sessions/newcomer/v1/me`)).arrayBuffer()
    const after = await (await fetch(`${server.url}/_sandbox/metrics`)).text()
    expect(after).not.toContain(`session="${labelled}"`)
    expect(sample(after, 'call_sandbox_requests_total', { session: 'newcomer' })).toBe(1)
  })

  it("is the server's, at the bare root only: a session's root has none", async () => {
    const server = await start()
    const response = await fetch(`${server.url}/sessions/ci-1/_sandbox/metrics`)
    expect(response.status).toBe(404)
    expect((await response.json()).error).toMatchObject({ code: 'not_found' })
    // The console is a session's too.
    expect((await fetch(`${server.url}/sessions/ci-1/_sandbox/console/`)).status).toBe(200)
  })

  it('wants the admin token when the server has one', async () => {
    const server = await start({ adminToken: 'admin-token-123' })
    expect((await fetch(`${server.url}/_sandbox/metrics`)).status).toBe(401)
    const allowed = await fetch(`${server.url}/_sandbox/metrics`, {
      headers: { Authorization: 'Bearer admin-token-123' },
    })
    expect(allowed.status).toBe(200)
  })
})

describe('--log json', () => {
  it('writes one JSON object a line: request id, session, method, path, status, duration, key as shown', async () => {
    const lines: string[] = []
    const server = await start({ quiet: false, log: (line) => lines.push(line), logFormat: 'json' })
    const answer = await fetch(`${server.url}/sessions/ci-2/v1/calls?limit=1`, {
      headers: { Authorization: 'Bearer sk_sandbox_readonly' },
    })
    await answer.arrayBuffer()
    // A line is written once the answer is out; the next request's line comes after every line of this one.
    const next = await fetch(`${server.url}/_sandbox/live`)
    await next.arrayBuffer()
    const nextId = next.headers.get('x-request-id')!
    await vi.waitFor(() => expect(lines.some((line) => line.includes(nextId))).toBe(true))
    const mine = lines.filter((line) => !line.includes(nextId))
    expect(mine).toHaveLength(1)
    const line = JSON.parse(mine[0]!)
    expect(line).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      request_id: answer.headers.get('x-request-id'),
      session: 'ci-2',
      method: 'GET',
      path: '/sessions/ci-2/v1/calls?limit=1',
      status: 200,
      duration_ms: expect.any(Number),
      key: 'sk_sandbox_readonly',
    })
  })
})

describe('the request log, for a client that goes away', () => {
  it('writes a line with no status for a request whose client closed before its answer', async () => {
    const lines: string[] = []
    const server = await start({ quiet: false, log: (line) => lines.push(line) })
    const { port } = new URL(server.url)
    const received = new Promise((resolve) => server.server.once('request', resolve))
    const socket = connect(Number(port), '127.0.0.1', () =>
      socket.write(
        `GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer sk_sandbox_all\r\nPrefer: delay=1500\r\n\r\n`,
      ),
    )
    // Gone once the server has the request, before its delayed answer.
    await received
    socket.destroy()
    await vi.waitFor(() => expect(lines).toHaveLength(1), { timeout: 5_000 })
    expect(lines[0]).toMatch(/^GET \/v1\/me - \(closed\) [\d.]+ ms /)
  })

  it('writes a line with no status and the request id for a connection a fault rule drops', async () => {
    const lines: string[] = []
    const server = await start({ quiet: false, log: (line) => lines.push(line) })
    await server.sandbox.faults.add({ path: '/v1/me', error: 'network' })
    await expect(
      fetch(`${server.url}/v1/me`, { headers: { Authorization: 'Bearer sk_sandbox_all' } }),
    ).rejects.toThrow()
    await vi.waitFor(() => expect(lines).toHaveLength(1), { timeout: 5_000 })
    const [entry] = server.sandbox.journal.entries()
    expect(entry).toMatchObject({ status: 0, fault: 'flt_1' })
    expect(lines[0]).toBe(`GET /v1/me - (closed) ${lines[0]!.split(' ')[4]} ms ${entry!.request_id}`)
  })
})

describe('the request log, for a long path', () => {
  it('cuts a 60,000-character path as an error echoes it: its first 200 characters and its length', async () => {
    const lines: string[] = []
    const server = await start({ quiet: false, log: (line) => lines.push(line) })
    const path = `/v1/callz/${'a'.repeat(60_000)}`
    const answer = await fetch(`${server.url}${path}`, { headers: { Authorization: 'Bearer sk_sandbox_all' } })
    expect(answer.status).toBe(404)
    await answer.arrayBuffer()
    await vi.waitFor(() => expect(lines).toHaveLength(1))
    expect(lines[0]).toContain(`GET ${path.slice(0, 200)}… (60,010 characters) 404 `)
    expect(lines[0]!.length).toBeLessThan(400)
  })
})

describe('liveness and readiness', () => {
  it('answers /_sandbox/live and /_sandbox/ready without the admin token', async () => {
    const server = await start({ adminToken: 'admin-token-123' })
    const live = await fetch(`${server.url}/_sandbox/live`)
    expect(live.status).toBe(200)
    expect((await live.json()).data).toMatchObject({ alive: true })
    const ready = await fetch(`${server.url}/_sandbox/ready`)
    expect(ready.status).toBe(200)
    expect((await ready.json()).data).toEqual({ ready: true, store: { kind: 'memory', state: 'ok', error: null } })
  })

  it('is alive but not ready while its data file refuses writes, and ready again once it takes one', async () => {
    const file = join(tempFolder('ready'), 'sandbox.log')
    const cli = runCli(['--port', '0', '--now', NOW, '--data', file, '--quiet'])
    const { url } = await listening(cli)
    execFileSync('prlimit', ['--pid', String(cli.child.pid), `--fsize=${statSync(file).size}:unlimited`])
    const write = () =>
      fetch(`${url}/v1/contacts`, {
        method: 'POST',
        headers: { ...AUTH, 'Content-Type': 'application/json' },
        body: '{"phone":"+14155550177"}',
      })
    expect((await write()).status).toBe(503)
    expect((await fetch(`${url}/_sandbox/live`)).status).toBe(200)
    const ready = await fetch(`${url}/_sandbox/ready`)
    expect(ready.status).toBe(503)
    expect((await ready.json()).error).toMatchObject({ code: 'service_unavailable' })
    const metrics = await (await fetch(`${url}/_sandbox/metrics`)).text()
    expect(sample(metrics, 'call_sandbox_store_errors_total')).toBe(1)
    execFileSync('prlimit', ['--pid', String(cli.child.pid), '--fsize=unlimited:unlimited'])
    expect((await write()).status).toBe(201)
    expect((await fetch(`${url}/_sandbox/ready`)).status).toBe(200)
  })
})

describe('the console files, /_sandbox/console/', () => {
  it('serves the page, its script and its style from the package, at the bare root and in a session', async () => {
    const server = await start({ adminToken: 'admin-token-123' })
    const moved = await fetch(`${server.url}/_sandbox/console`, { redirect: 'manual' })
    expect([moved.status, moved.headers.get('location')]).toEqual([301, '/_sandbox/console/'])
    const inSession = await fetch(`${server.url}/sessions/ci-3/_sandbox/console`, { redirect: 'manual' })
    expect(inSession.headers.get('location')).toBe('/sessions/ci-3/_sandbox/console/')
    for (const [path, type] of [
      ['/_sandbox/console/', 'text/html'],
      ['/_sandbox/console/console.js', 'text/javascript'],
      ['/_sandbox/console/console.css', 'text/css'],
      ['/sessions/ci-3/_sandbox/console/', 'text/html'],
    ]) {
      // The files want no admin token: the page asks for it for what it reads.
      const response = await fetch(`${server.url}${path}`)
      expect(response.status, path).toBe(200)
      expect(response.headers.get('content-type'), path).toMatch(new RegExp(`^${type}`))
      expect((await response.text()).length, path).toBeGreaterThan(100)
    }
    // Every file of the folder, so that a module the script imports is never left off the served list.
    const types: Record<string, string> = { html: 'text/html', js: 'text/javascript', css: 'text/css' }
    for (const name of readdirSync(new URL('../console/', import.meta.url))) {
      const response = await fetch(`${server.url}/sessions/ci-3/_sandbox/console/${name}`)
      expect(response.status, name).toBe(200)
      expect(response.headers.get('content-type'), name).toBe(`${types[name.split('.').pop()!]}; charset=utf-8`)
    }
    const missing = await fetch(`${server.url}/_sandbox/console/nope.js`)
    expect(missing.status).toBe(404)
    expect((await missing.json()).error.code).toBe('not_found')
    // A name of 60,000 characters is quoted by its first 200 at most.
    const long = await fetch(`${server.url}/_sandbox/console/${'a'.repeat(60_000)}`)
    expect(long.status).toBe(404)
    const { error } = await long.json()
    expect(error.message).toContain(`The console has no file ${'a'.repeat(200)}`)
    expect(error.message).not.toContain('a'.repeat(201))
  })
})
