import { connect } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ErrorEnvelope } from '../src/index.js'
import { DEFAULT_REQUEST_TIMEOUT_MS, type RunningServer, startServer } from '../src/server/startServer.js'
import { call, sandboxServer } from './support/proxies.js'
import { NOW } from './support/transports.js'

/*
 * What the standalone server bounds beyond the handlers: a method fetch
 * cannot carry on a long path, and the time a request may take to arrive
 * (--request-timeout). Requests go over raw sockets, as a hostile client
 * sends them; a probe on another connection is answered meanwhile.
 */

interface RawAnswer {
  status: number
  /** The head, lower case. */
  head: string
  body: any
  /** Bytes of the request written before the server closed the connection. */
  written: number
}

const sockets = new Set<ReturnType<typeof connect>>()
afterEach(() => {
  for (const socket of sockets) socket.destroy()
  sockets.clear()
})

/**
 * Writes `head` and `body` over a raw connection, the whole of them at once, or with `trickle` the first `at` bytes
 * at once and the rest `bytes` at a time every `everyMs`, until the server closes the connection: its answer, once
 * closed.
 */
function rawExchange(
  url: string,
  {
    head,
    body = '',
    trickle,
  }: { head: string; body?: string; trickle?: { at: number; bytes: number; everyMs: number } },
): Promise<RawAnswer> {
  const { port } = new URL(url)
  const request = head + body
  return new Promise((resolve, reject) => {
    let text = ''
    let written = 0
    let timer: ReturnType<typeof setInterval> | undefined
    const socket = connect(Number(port), '127.0.0.1', () => {
      written = trickle ? trickle.at : request.length
      socket.write(request.slice(0, written))
      if (!trickle) return
      timer = setInterval(() => {
        if (written >= request.length || socket.destroyed) return clearInterval(timer)
        socket.write(request.slice(written, written + trickle.bytes))
        written += trickle.bytes
      }, trickle.everyMs)
    })
    sockets.add(socket)
    socket.on('data', (chunk) => (text += chunk))
    socket.on('error', () => undefined)
    socket.on('close', () => {
      clearInterval(timer)
      const [answerHead = '', ...rest] = text.split('\r\n\r\n')
      const json = rest.join('\r\n\r\n')
      try {
        resolve({
          status: Number(answerHead.split(' ')[1]),
          head: answerHead.toLowerCase(),
          body: JSON.parse(json.slice(json.indexOf('{'), json.lastIndexOf('}') + 1)),
          written: Math.min(written, request.length),
        })
      } catch (error) {
        reject(new Error(`not a JSON answer: ${text.slice(0, 500)}`, { cause: error }))
      }
    })
  })
}

async function probe(url: string): Promise<number> {
  const response = await fetch(`${url}/_sandbox/live`)
  await response.arrayBuffer()
  return response.status
}

const CONTACT_HEAD = (length: number, extra = '') =>
  `POST /v1/contacts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer sk_sandbox_all\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`

describe('the server bounds the work of a request', () => {
  it('answers TRACE on a 60,000-character path with a small 404, a probe answered beside it', async () => {
    const server = await sandboxServer()
    for (const path of [`/v1/callz/${'a'.repeat(60_000)}`, `/sessions/ci-1/v1/callz/${'a'.repeat(60_000)}`]) {
      const [answer, alive] = await Promise.all([
        rawExchange(server.url, { head: `TRACE ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n` }),
        probe(server.url),
      ])
      expect(answer.status).toBe(404)
      expect(ErrorEnvelope.strict().parse(answer.body).error.message).toContain('(60,0')
      expect(JSON.stringify(answer.body).length).toBeLessThan(4_096)
      expect(alive).toBe(200)
    }
  })
})

describe('the request timeout (--request-timeout)', () => {
  /** Short enough for a test; a byte every 100 ms would take the body far past it. */
  const TIMEOUT = 400

  it('defaults to 30 s for the whole request, headers included', async () => {
    const server = await sandboxServer()
    expect(DEFAULT_REQUEST_TIMEOUT_MS).toBe(30_000)
    expect(server.server.requestTimeout).toBe(30_000)
    expect(server.server.headersTimeout).toBe(30_000)
  })

  it.each([0, 99, 3_600_001, 1.5, Number.NaN])('refuses a timeout of %s ms', async (requestTimeout) => {
    await expect(startServer({ port: 0, quiet: true, now: NOW, requestTimeout })).rejects.toThrow(/requestTimeout/)
  })

  it("answers a body still arriving after it with 408 request_timeout, the sandbox's own answer, and closes", async () => {
    const server = await sandboxServer({ requestTimeout: TIMEOUT })
    const body = JSON.stringify({ phone: '+14155550123', notes: 'x'.repeat(200) })
    const head = CONTACT_HEAD(body.length)
    const slow = rawExchange(server.url, { head, body, trickle: { at: head.length + 1, bytes: 1, everyMs: 100 } })
    expect(await probe(server.url)).toBe(200)
    const answer = await slow
    expect(answer.status).toBe(408)
    expect(answer.head).toContain('connection: close')
    const { error, meta } = ErrorEnvelope.strict().parse(answer.body)
    expect(error.code).toBe('request_timeout')
    expect(error.message).toContain('400 ms')
    // Closed long before the body was all sent.
    expect(answer.written).toBeLessThan(head.length + body.length)
    // The answer is the pipeline's: the journal has it under the same request id; nothing was created.
    expect(server.sandbox.journal.entries(1)[0]).toMatchObject({ request_id: meta.request_id, status: 408 })
    expect(answer.head).toContain(`x-request-id: ${meta.request_id.toLowerCase()}`)
    expect((await call(`${server.url}/v1/contacts?phone=%2B14155550123`)).body.data).toEqual([])
  })

  it('answers headers still arriving after it with 408 request_timeout, and closes', async () => {
    const server = await sandboxServer({ requestTimeout: TIMEOUT })
    const head = `GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer sk_sandbox_all\r\nX-Pad: ${'p'.repeat(200)}\r\n\r\n`
    const slow = rawExchange(server.url, { head, trickle: { at: 0, bytes: 2, everyMs: 100 } })
    expect(await probe(server.url)).toBe(200)
    const answer = await slow
    expect(answer.status).toBe(408)
    expect(ErrorEnvelope.strict().parse(answer.body).error.code).toBe('request_timeout')
    expect(answer.written).toBeLessThan(head.length)
  })

  it('leaves the answer its time: a body sent in time meets a Prefer: delay past the timeout, and is answered', async () => {
    const server = await sandboxServer({ requestTimeout: TIMEOUT })
    const body = JSON.stringify({ phone: '+14155550124' })
    const answer = await rawExchange(server.url, {
      head: CONTACT_HEAD(body.length, `Prefer: delay=${3 * TIMEOUT}\r\nConnection: close\r\n`),
      body,
    })
    expect(answer.status).toBe(201)
  })

  it('leaves a slow upstream its time in proxy mode', async () => {
    const upstream = await sandboxServer({ latency: 3 * TIMEOUT })
    const proxy = await sandboxServer({ proxy: upstream.url, requestTimeout: TIMEOUT })
    const answer = await call(`${proxy.url}/v1/me`)
    expect(answer.status).toBe(200)
    expect(answer.headers.get('x-sandbox-contract')).toBe('ok')
  })

  it('journals a body cut short by a client gone as a 400 invalid_json, not a 500', async () => {
    const server = await sandboxServer()
    const errors = vi.spyOn(console, 'error')
    const { port } = new URL(server.url)
    const received = new Promise((resolve) => server.server.once('request', resolve))
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(`${CONTACT_HEAD(100)}{"phone":`))
    sockets.add(socket)
    await received
    socket.destroy()
    await vi.waitFor(() => expect(server.sandbox.journal.entries(1)[0]?.status).toBe(400), { interval: 20 })
    expect(errors).not.toHaveBeenCalled()
    errors.mockRestore()
  })

  it('lets a keep-alive connection wait between requests', async () => {
    const server: RunningServer = await sandboxServer({ requestTimeout: TIMEOUT })
    const get = 'GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer sk_sandbox_all\r\n\r\n'
    const { port } = new URL(server.url)
    const socket = connect(Number(port), '127.0.0.1')
    sockets.add(socket)
    let text = ''
    socket.on('data', (chunk) => (text += chunk))
    socket.write(get)
    await new Promise((resolve) => setTimeout(resolve, 2 * TIMEOUT))
    socket.end(`${get.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n')}`)
    await new Promise((resolve) => socket.on('close', resolve))
    expect(text.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200'])
  })
})
