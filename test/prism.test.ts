import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FORCEABLE_STATUSES } from '../src/http/prefer.js'
import { startServer, type RunningServer } from '../src/server/startServer.js'
import { NOW } from './support/transports.js'

/*
 * Stoplight Prism, a validator of its own, as a proxy in front of the
 * standalone server: `prism proxy <the served /openapi.json> <sandbox> --errors`.
 *
 * What Prism does, as read from its source (prism-http-server 5.14) and
 * checked here:
 * - It routes by path and method only: `servers` (`[{ url: '/' }]` here) is
 *   read only when a request names one with `?__server=`; every request
 *   goes to the upstream of the command line.
 * - With --errors, a request the document does not allow is answered by
 *   Prism itself, never forwarded: 422 problem+json listing the violations
 *   (401 when the Authorization the security scheme wants is missing; 404
 *   or 405 for a path or method the document does not have; 400 for a
 *   body that is not JSON under `Content-Type: application/json`).
 * - An answer the document does not allow becomes Prism's 500
 *   problem+json, and the violations go in an `sl-violations` header.
 *
 * Two Prisms run: one with `--validate-request false`, so that requests the
 * document forbids still reach the sandbox and its error answers are held to
 * the document too; one that checks requests as well, so that the document
 * is shown to take every request the sandbox takes.
 */

const PRISM_CLI = join(
  dirname(createRequire(import.meta.url).resolve('@stoplight/prism-cli/package.json')),
  'dist/index.js',
)
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000'
/** Sent by the test to the relay: the sandbox's answer loses its `meta` on the way back to Prism. */
const BREAK_THE_ANSWER = 'x-test-break-the-answer'

const KEYS = {
  sk_sandbox_all: ['calls:read', 'contacts:read', 'contacts:write', 'leads:read', 'appointments:read'],
  sk_sandbox_readonly: ['calls:read', 'contacts:read', 'leads:read', 'appointments:read'],
  sk_sandbox_calls: ['calls:read'],
  sk_sandbox_org2: ['calls:read', 'contacts:read', 'contacts:write', 'leads:read', 'appointments:read'],
} as const

/** Values read from the sandbox before the samples are sent. */
const seen = { call: '', contact: '', contactPhone: '', callPhone: '', cursors: {} as Record<string, string> }
let phone = 14155550700

interface Sample {
  name: string
  path: () => string
  method?: string
  /** `null`: no Authorization. Default `sk_sandbox_all`. */
  key?: string | null
  headers?: Record<string, string>
  body?: () => string
  /** The sandbox's status. */
  status: number
  /**
   * Answered by Prism itself in every mode (a path, method or Authorization the document does not have): its status and
   * error type.
   */
  prism?: { status: number; type: string }
  /**
   * The request breaks the document here (a violation's location, like `query.limit`): Prism checking requests answers
   * 422 itself.
   */
  violates?: string
}

const json = { 'Content-Type': 'application/json' }
const endpoints: Array<{ name: string; scope: string | null; own?: boolean; path: () => string }> = [
  { name: 'GET /v1/calls', scope: 'calls:read', path: () => '/v1/calls?limit=2' },
  { name: 'GET /v1/calls/{call_id}', scope: 'calls:read', own: true, path: () => `/v1/calls/${seen.call}` },
  { name: 'GET /v1/contacts', scope: 'contacts:read', path: () => '/v1/contacts?limit=2' },
  {
    name: 'GET /v1/contacts/{contact_id}',
    scope: 'contacts:read',
    own: true,
    path: () => `/v1/contacts/${seen.contact}`,
  },
  { name: 'GET /v1/leads', scope: 'leads:read', path: () => '/v1/leads?limit=2' },
  { name: 'GET /v1/appointments', scope: 'appointments:read', path: () => '/v1/appointments?limit=2' },
  { name: 'GET /v1/me', scope: null, path: () => '/v1/me' },
]

const samples: Sample[] = [
  // Every endpoint with every key: 200, 403 for a missing scope, 404 for the other organization's record.
  ...Object.entries(KEYS).flatMap(([key, scopes]): Sample[] => [
    ...endpoints.map(({ name, scope, own, path }) => ({
      name: `${name} with ${key}`,
      path,
      key,
      status:
        scope !== null && !(scopes as readonly string[]).includes(scope)
          ? 403
          : own && key === 'sk_sandbox_org2'
            ? 404
            : 200,
    })),
    {
      name: `POST /v1/contacts with ${key}`,
      path: () => '/v1/contacts',
      method: 'POST',
      key,
      headers: json,
      body: () => JSON.stringify({ phone: `+${phone++}`, name: 'Dana Whitfield', email: 'dana@example.com' }),
      status: scopes.includes('contacts:write' as never) ? 201 : 403,
    },
  ]),
  // Filters, since, limit, and the next page of every list.
  { name: 'GET /v1/calls filtered by status', path: () => '/v1/calls?status=completed&limit=3', status: 200 },
  {
    name: 'GET /v1/calls filtered by phone (+ as %2B)',
    path: () => `/v1/calls?phone=${encodeURIComponent(seen.callPhone)}`,
    status: 200,
  },
  { name: 'GET /v1/calls since a date', path: () => '/v1/calls?since=2026-11-19&limit=5', status: 200 },
  {
    name: 'GET /v1/calls since a date-time with an offset',
    path: () => '/v1/calls?since=2026-11-19T09:00:00%2B01:00&limit=5',
    status: 200,
  },
  { name: 'GET /v1/calls with limit=100', path: () => '/v1/calls?limit=100', status: 200 },
  { name: 'GET /v1/calls/{call_id} in upper case', path: () => `/v1/calls/${seen.call.toUpperCase()}`, status: 200 },
  {
    name: 'GET /v1/contacts filtered by phone',
    path: () => `/v1/contacts?phone=${encodeURIComponent(seen.contactPhone)}`,
    status: 200,
  },
  {
    name: 'GET /v1/leads filtered by status and urgency',
    path: () => '/v1/leads?status=new&urgency=high',
    status: 200,
  },
  { name: 'GET /v1/appointments filtered by status', path: () => '/v1/appointments?status=booked', status: 200 },
  ...['calls', 'contacts', 'leads', 'appointments'].map((kind) => ({
    name: `GET /v1/${kind}, the next page`,
    path: () => `/v1/${kind}?limit=2&cursor=${seen.cursors[kind]}`,
    status: 200,
  })),
  // Requests the document takes and the sandbox refuses.
  { name: 'GET /v1/calls with an unknown parameter', path: () => '/v1/calls?foo=1', status: 400 },
  { name: 'GET /v1/calls with a malformed cursor', path: () => '/v1/calls?cursor=nope', status: 400 },
  {
    name: 'GET /v1/calls with a cursor of other filters',
    path: () => `/v1/calls?status=failed&cursor=${seen.cursors.calls}`,
    status: 400,
  },
  { name: 'GET /v1/calls with since that is no date', path: () => '/v1/calls?since=yesterday', status: 400 },
  { name: 'GET /v1/calls/{call_id} of no call', path: () => `/v1/calls/${UNKNOWN_ID}`, status: 404 },
  { name: 'GET /v1/contacts/{contact_id} of no contact', path: () => `/v1/contacts/${UNKNOWN_ID}`, status: 404 },
  { name: 'GET /v1/me with an unknown key', path: () => '/v1/me', key: 'sk_nobody_has_this', status: 401 },
  {
    name: 'POST /v1/contacts with a phone that has a contact (409)',
    path: () => '/v1/contacts',
    method: 'POST',
    headers: json,
    body: () => JSON.stringify({ phone: seen.contactPhone }),
    status: 409,
  },
  // Requests the document forbids: the sandbox's answer when they reach it.
  { name: 'GET /v1/calls with limit=0', path: () => '/v1/calls?limit=0', status: 400, violates: 'query.limit' },
  { name: 'GET /v1/calls with limit=101', path: () => '/v1/calls?limit=101', status: 400, violates: 'query.limit' },
  {
    name: 'GET /v1/calls with a status it does not know',
    path: () => '/v1/calls?status=done',
    status: 400,
    violates: 'query.status',
  },
  {
    name: 'GET /v1/calls with a phone whose + came as a space',
    path: () => '/v1/calls?phone=+14155550123',
    status: 400,
    violates: 'query.phone',
  },
  {
    name: 'GET /v1/calls/{call_id} that is no UUID',
    path: () => '/v1/calls/not-a-uuid',
    status: 400,
    violates: 'path.call_id',
  },
  {
    name: 'POST /v1/contacts with bad fields (422)',
    path: () => '/v1/contacts',
    method: 'POST',
    headers: json,
    body: () => '{"phone":"555","nickname":"D"}',
    status: 422,
    violates: 'body',
  },
  {
    name: 'POST /v1/contacts without a phone (422)',
    path: () => '/v1/contacts',
    method: 'POST',
    headers: json,
    body: () => '{"name":"Dana"}',
    status: 422,
    violates: 'body',
  },
  {
    name: 'POST /v1/contacts not as JSON (415)',
    path: () => '/v1/contacts',
    method: 'POST',
    headers: { 'Content-Type': 'text/plain' },
    body: () => '{}',
    status: 415,
    violates: '',
  },
  {
    name: 'POST /v1/contacts with a JSON array (400)',
    path: () => '/v1/contacts',
    method: 'POST',
    headers: json,
    body: () => '[1]',
    status: 400,
    violates: 'body',
  },
  {
    name: 'GET /_sandbox/requests with limit=0',
    path: () => '/_sandbox/requests?limit=0',
    key: null,
    status: 400,
    violates: 'query.limit',
  },
  {
    name: 'POST /_sandbox/calls not as JSON (415)',
    path: () => '/_sandbox/calls',
    method: 'POST',
    key: null,
    headers: { 'Content-Type': 'text/plain' },
    body: () => '{}',
    status: 415,
    violates: '',
  },
  // Prefer: every status it can force, and a delay.
  ...FORCEABLE_STATUSES.map((status) => ({
    name: `GET /v1/me with Prefer: code=${status}`,
    path: () => '/v1/me',
    headers: { Prefer: `code=${status}` },
    status,
  })),
  {
    name: 'POST /v1/contacts with Prefer: code=422',
    path: () => '/v1/contacts',
    method: 'POST',
    headers: { ...json, Prefer: 'code=422' },
    body: () => `{"phone":"+${phone++}"}`,
    status: 422,
  },
  {
    name: 'GET /v1/calls with Prefer: code=429, delay=10',
    path: () => '/v1/calls?limit=1',
    headers: { Prefer: 'code=429, delay=10' },
    status: 429,
  },
  // The control plane, and the document itself.
  { name: 'GET /_sandbox/health', path: () => '/_sandbox/health', key: null, status: 200 },
  { name: 'GET /_sandbox/clock', path: () => '/_sandbox/clock', key: null, status: 200 },
  {
    name: 'POST /_sandbox/clock, moved on by 0 s',
    path: () => '/_sandbox/clock',
    method: 'POST',
    key: null,
    headers: json,
    body: () => '{"advance_seconds":0}',
    status: 200,
  },
  { name: 'GET /_sandbox/scenarios', path: () => '/_sandbox/scenarios', key: null, status: 200 },
  { name: 'GET /_sandbox/choices', path: () => '/_sandbox/choices', key: null, status: 200 },
  { name: 'GET /_sandbox/requests', path: () => '/_sandbox/requests?limit=5', key: null, status: 200 },
  { name: 'GET /_sandbox/usage', path: () => '/_sandbox/usage', key: null, status: 200 },
  {
    name: 'POST /_sandbox/calls, a random caller',
    path: () => '/_sandbox/calls',
    method: 'POST',
    key: null,
    headers: json,
    body: () => '{}',
    status: 201,
  },
  {
    name: 'POST /_sandbox/calls, a live call',
    path: () => '/_sandbox/calls',
    method: 'POST',
    key: null,
    headers: json,
    body: () => '{"status":"in-progress"}',
    status: 201,
  },
  {
    name: 'POST /_sandbox/calls for no organization (422)',
    path: () => '/_sandbox/calls',
    method: 'POST',
    key: null,
    headers: json,
    body: () => `{"organization_id":"${UNKNOWN_ID}"}`,
    status: 422,
  },
  { name: 'GET /openapi.json', path: () => '/openapi.json', key: null, status: 200 },
  {
    name: 'POST /_sandbox/reset',
    path: () => '/_sandbox/reset',
    method: 'POST',
    key: null,
    headers: json,
    body: () => '{}',
    status: 200,
  },
  // What Prism answers itself: a path or a method the document does not have, no Authorization, a body that is not
  // JSON.
  {
    name: 'GET /v1/nowhere',
    path: () => '/v1/nowhere',
    status: 404,
    prism: { status: 404, type: 'NO_PATH_MATCHED_ERROR' },
  },
  {
    name: 'DELETE /v1/calls',
    path: () => '/v1/calls',
    method: 'DELETE',
    status: 405,
    prism: { status: 405, type: 'NO_METHOD_MATCHED_ERROR' },
  },
  {
    name: 'GET /v1/calls without Authorization',
    path: () => '/v1/calls',
    key: null,
    status: 401,
    prism: { status: 401, type: 'UNAUTHORIZED' },
  },
  {
    name: 'POST /v1/contacts with a body that is not JSON',
    path: () => '/v1/contacts',
    method: 'POST',
    headers: json,
    body: () => '{"phone":',
    status: 400,
    prism: { status: 400, type: '' },
  },
]

interface Reply {
  status: number
  headers: Headers
  text: string
  body: any
}

async function send(origin: string, sample: Sample, extraHeaders: Record<string, string> = {}): Promise<Reply> {
  const { method = 'GET', key = 'sk_sandbox_all', headers = {}, body } = sample
  const response = await fetch(origin + sample.path(), {
    method,
    headers: { ...(key === null ? {} : { Authorization: `Bearer ${key}` }), ...headers, ...extraHeaders },
    body: body?.(),
  })
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = text
  }
  return { status: response.status, headers: response.headers, text, body: parsed }
}

/** The answer, shown in a failure message. */
const show = (reply: Reply) =>
  `${reply.status} sl-violations: ${reply.headers.get('sl-violations')} body: ${reply.text.slice(0, 600)}`

/** Prism proxying to `upstream`; resolves with its URL once it listens. */
function startPrism(
  documentFile: string,
  upstream: string,
  options: string[],
): { process: ChildProcess; url: Promise<string>; output: () => string } {
  const child = spawn(
    process.execPath,
    [PRISM_CLI, 'proxy', documentFile, upstream, '--errors', ...options, '-p', '0', '-h', '127.0.0.1'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  // Should the test process end without afterAll (a crash, a kill), Prism ends with it.
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)
  child.once('exit', () => process.off('exit', killOnExit))
  // Prism logs every request: its output is read all along (a full pipe would stall it), and its end kept for failure
  // messages.
  let output = ''
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000)
  }
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start within 30 s:\n${output}`)), 30_000)
    child.stdout!.on('data', () => {
      // eslint-disable-next-line no-control-regex
      // biome-ignore lint/suspicious/noControlCharactersInRegex: Prism colours its output; ESC starts each colour code.
      const listening = /Prism is listening on (http:\/\/\S+)/.exec(output.replace(/\x1b\[[0-9;]*m/g, ''))
      if (listening) {
        clearTimeout(timer)
        resolve(listening[1]!)
      }
    })
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`Prism exited (${code ?? signal}) before it listened:\n${output}`))
    })
  })
  url.catch(() => {})
  return { process: child, url, output: () => output }
}

/** Ends a child: SIGTERM, then SIGKILL if it is still there after 3 s. */
async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 3_000)
  await exited
  clearTimeout(timer)
}

/**
 * Passes every request on to the sandbox and its answer back, unchanged;
 * but when the request carries BREAK_THE_ANSWER, the answer loses `meta`.
 */
function startRelay(upstream: string): Promise<Server> {
  const relay = createServer(async (request, response) => {
    try {
      const chunks: Buffer[] = []
      for await (const chunk of request) chunks.push(chunk as Buffer)
      const headers = Object.entries(request.headers).flatMap(([name, value]) =>
        name === 'host' || name === 'connection' || name === 'content-length' || value === undefined
          ? []
          : [[name, String(value)] as [string, string]],
      )
      const answer = await fetch(upstream + request.url, {
        method: request.method,
        headers,
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      })
      let text = await answer.text()
      if (request.headers[BREAK_THE_ANSWER]) {
        const { meta: _, ...rest } = JSON.parse(text) as Record<string, unknown>
        text = JSON.stringify(rest)
      }
      const passed = [...answer.headers].filter(
        ([name]) => !['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(name),
      )
      response.writeHead(answer.status, Object.fromEntries(passed))
      response.end(text)
    } catch (error) {
      response.writeHead(502, { 'Content-Type': 'text/plain' })
      response.end(`relay: ${String(error)}`)
    }
  })
  return new Promise((resolve) => relay.listen(0, '127.0.0.1', () => resolve(relay)))
}

describe('Stoplight Prism, proxying to the sandbox with the document it serves', () => {
  let sandbox: RunningServer
  let relay: Server | undefined
  let directory: string | undefined
  const prisms: Record<
    'answers' | 'both',
    { process: ChildProcess; url: Promise<string>; output: () => string } | undefined
  > = { answers: undefined, both: undefined }
  const origins = { answers: '', both: '' }

  beforeAll(async () => {
    sandbox = await startServer({ now: NOW, port: 0, quiet: true })
    const get = async (path: string, key = 'sk_sandbox_all') =>
      (await fetch(sandbox.url + path, { headers: { Authorization: `Bearer ${key}` } })).json() as Promise<any>
    const calls = await get('/v1/calls?limit=2')
    const contacts = await get('/v1/contacts?limit=2')
    Object.assign(seen, {
      call: calls.data[0].id,
      callPhone: calls.data[0].caller_phone,
      contact: contacts.data[0].id,
      contactPhone: contacts.data[0].phone,
    })
    for (const kind of ['calls', 'contacts', 'leads', 'appointments'])
      seen.cursors[kind] = (await get(`/v1/${kind}?limit=2`)).next_cursor

    directory = mkdtempSync(join(tmpdir(), 'call-sandbox-prism-'))
    const documentFile = join(directory, 'openapi.json')
    writeFileSync(documentFile, await (await fetch(`${sandbox.url}/openapi.json`)).text())
    relay = await startRelay(sandbox.url)
    const upstream = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`
    prisms.answers = startPrism(documentFile, upstream, ['--validate-request', 'false'])
    prisms.both = startPrism(documentFile, upstream, [])
    ;[origins.answers, origins.both] = await Promise.all([prisms.answers.url, prisms.both.url])
  }, 60_000)

  afterAll(async () => {
    await Promise.all([stop(prisms.answers?.process), stop(prisms.both?.process)])
    await new Promise((resolve) => (relay ? relay.close(resolve) : resolve(undefined)))
    await sandbox?.close()
    if (directory) rmSync(directory, { recursive: true, force: true })
  })

  /** Prism's own answer: problem+json of its error type. */
  const expectPrismAnswered = (reply: Reply, { status, type }: { status: number; type: string }) => {
    expect(reply.status, show(reply)).toBe(status)
    if (type) expect(reply.body.type, show(reply)).toBe(`https://stoplight.io/prism/errors#${type}`)
  }

  /** The sandbox's answer, passed through: its status and envelope, and no violation. */
  const expectPassedClean = (reply: Reply, sample: Sample) => {
    expect(reply.headers.get('sl-violations'), show(reply)).toBeNull()
    expect(reply.status, show(reply)).toBe(sample.status)
    expect(reply.headers.get('content-type'), show(reply)).toMatch(/^application\/json/)
    if (sample.path() !== '/openapi.json')
      expect(reply.body.meta.request_id, show(reply)).toBe(reply.headers.get('x-request-id'))
  }

  describe('checking the answers only (--validate-request false): every answer of the sandbox is one the document allows', () => {
    for (const sample of samples) {
      it(`${sample.name}: ${sample.prism ? `Prism's own ${sample.prism.status}` : `${sample.status}, no violation`}`, async () => {
        const reply = await send(origins.answers, sample)
        if (sample.prism) expectPrismAnswered(reply, sample.prism)
        else expectPassedClean(reply, sample)
      })
    }

    it('turns an answer the document does not allow into its 500, listing the violation in sl-violations', async () => {
      const reply = await send(
        origins.answers,
        { name: 'GET /v1/me', path: () => '/v1/me', status: 200 },
        { [BREAK_THE_ANSWER]: '1' },
      )
      expectPrismAnswered(reply, { status: 500, type: 'VIOLATIONS' })
      const violations = JSON.parse(reply.headers.get('sl-violations') ?? '[]') as Array<{
        location: string[]
        severity: string
        message: string
      }>
      expect(violations, show(reply)).toContainEqual(
        expect.objectContaining({
          location: ['response', 'body'],
          severity: 'Error',
          message: expect.stringContaining("'meta'"),
        }),
      )
    })
  })

  describe('checking requests too: the document takes every request the sandbox takes', () => {
    for (const sample of samples) {
      const outcome = sample.prism
        ? `Prism's own ${sample.prism.status}`
        : sample.violates !== undefined
          ? `Prism's 422, a violation of the request${sample.violates ? ` at ${sample.violates}` : ''}`
          : `${sample.status}, no violation`
      it(`${sample.name}: ${outcome}`, async () => {
        const reply = await send(origins.both, sample)
        if (sample.prism) return expectPrismAnswered(reply, sample.prism)
        if (sample.violates === undefined) return expectPassedClean(reply, sample)
        expectPrismAnswered(reply, { status: 422, type: 'UNPROCESSABLE_ENTITY' })
        const locations = (reply.body.validation as Array<{ location?: string[] }>).map(({ location = [] }) =>
          location.join('.'),
        )
        expect(locations, show(reply)).toContainEqual(sample.violates)
      })
    }
  })
})
