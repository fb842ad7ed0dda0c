import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe } from 'vitest'
import { createSandbox, type SandboxWithHandlers } from '../../src/index.js'
import type { CreateSandboxOptions as SandboxOptions } from '../../src/index.js'
import { startServer } from '../../src/server/startServer.js'
import { assertAllowedByDocument, documentValidatorOf } from './documentValidator.js'
import { onUnhandled } from './onUnhandled.js'

/** The instant the test worlds are seeded at; their clock stands still there. */
export const NOW = '2026-11-20T12:00:00.000Z'

/** The first organization of the default world, and the second. */
export const ORG_1 = '32c2f8c7-f989-4916-b7db-478a1fa9c50b'
export const ORG_2 = '4789e4cf-b70d-42e5-887a-e3192733cc30'

export interface RequestOptions {
  method?: string
  /** An API key for `Authorization: Bearer`; `null` sends no Authorization. Default `sk_sandbox_all`. */
  key?: string | null
  headers?: Record<string, string>
  body?: string
}

export interface Answer {
  status: number
  headers: Headers
  /** Parsed JSON, or the raw text when it is not JSON. */
  body: any
}

/** One way of reaching a sandbox: in process through MSW, or over HTTP. */
export interface Transport {
  name: 'in-process' | 'http'
  sandbox: SandboxWithHandlers
  request(path: string, options?: RequestOptions): Promise<Answer>
  close(): Promise<void>
}

const IN_PROCESS_ORIGIN = 'https://api.call-sandbox.test'

/**
 * The sandbox's handlers in `setupServer`, matched on one origin only, so
 * that an HTTP transport in the same file is not intercepted.
 */
export async function inProcess(options: SandboxOptions = {}): Promise<Transport> {
  const sandbox = createSandbox({ now: NOW, baseUrl: IN_PROCESS_ORIGIN, ...options })
  const server = setupServer(...sandbox.handlers)
  server.listen(onUnhandled('bypass'))
  await sandbox.ready
  return {
    name: 'in-process',
    sandbox,
    request: (path, requestOptions) => send(sandbox, IN_PROCESS_ORIGIN + path, requestOptions),
    close: async () => server.close(),
  }
}

/** The standalone server on a free loopback port. */
export async function overHttp(options: SandboxOptions = {}): Promise<Transport> {
  const running = await startServer({ now: NOW, port: 0, quiet: true, ...options })
  return {
    name: 'http',
    sandbox: running.sandbox,
    request: (path, requestOptions) => send(running.sandbox, running.url + path, requestOptions),
    close: running.close,
  }
}

export const transports = [inProcess, overHttp] as const

/**
 * Declares the tests of `define` once a transport (`$transport` in `title` names it): `api` stands for a
 * transport opened before them and closed after them.
 *
 * @example
 * describeEachTransport('lists ($transport)', (api) => it('pages', async () => api.request('/v1/calls')))
 */
export function describeEachTransport(title: string, define: (api: Transport) => void): void {
  describe.each(transports.map((connect) => ({ connect, transport: connect.name })))(title, ({ connect }) => {
    let opened: Transport | undefined
    beforeAll(async () => {
      opened = await connect()
    })
    afterAll(() => opened?.close())
    const current = () => {
      if (!opened) throw new Error('The transport is not open yet: use it inside a test.')
      return opened
    }
    define({
      get name() {
        return current().name
      },
      get sandbox() {
        return current().sandbox
      },
      request: (path, options) => current().request(path, options),
      close: () => current().close(),
    })
  })
}

/**
 * Sends a request and reads the answer, which must be one the sandbox's
 * OpenAPI document allows: otherwise the request fails with a
 * `DocumentViolation`, and so does the test that made it.
 */
async function send(
  sandbox: SandboxWithHandlers,
  url: string,
  { method = 'GET', key = 'sk_sandbox_all', headers = {}, body }: RequestOptions = {},
): Promise<Answer> {
  const response = await fetch(url, {
    method,
    headers: { ...(key === null ? {} : { Authorization: `Bearer ${key}` }), ...headers },
    body,
  })
  const text = await response.text()
  assertAllowedByDocument(documentValidatorOf(sandbox), {
    method,
    url,
    status: response.status,
    headers: response.headers,
    text,
  })
  return { status: response.status, headers: response.headers, body: jsonOrText(text) }
}

/** An answer's body parsed as JSON; not JSON, the text as it is, for the test to fail on what it expected. */
export function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Every record of a list, walking `next_cursor` page by page. */
export async function walk(transport: Transport, path: string, key = 'sk_sandbox_all'): Promise<any[]> {
  const records: any[] = []
  let url = path
  for (let pages = 0; pages < 10_000; pages++) {
    const { status, body } = await transport.request(url, { key })
    if (status !== 200) throw new Error(`${url} answered ${status}: ${JSON.stringify(body)}`)
    records.push(...body.data)
    if (!body.has_more) return records
    url = `${path}${path.includes('?') ? '&' : '?'}cursor=${body.next_cursor}`
  }
  throw new Error(`${path} did not end after 10,000 pages`)
}
