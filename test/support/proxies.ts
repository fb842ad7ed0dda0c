import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach } from 'vitest'
import { startServer, type RunningServer, type ServerOptions } from '../../src/server/startServer.js'
import { jsonOrText, NOW } from './transports.js'

/*
 * Servers for proxy mode's tests, all on free loopback ports and all closed
 * after each test: sandboxes (the proxy, a clean upstream, a world started
 * from a recording) and fake upstreams of node:http.
 */

const open = new Map<object, () => Promise<void>>()

afterEach(async () => {
  const closing = [...open.values()]
  open.clear()
  await Promise.all(closing.map((close) => close()))
})

/** A standalone sandbox seeded at NOW, closed after the test. */
export async function sandboxServer(options: ServerOptions = {}): Promise<RunningServer> {
  const server = await startServer({ port: 0, quiet: true, now: NOW, ...options })
  open.set(server, () => server.close())
  return server
}

/** Closes a sandbox server before the test ends (to flush its recording). */
export async function closeServer(server: RunningServer): Promise<void> {
  open.delete(server)
  await server.close()
}

/** A node:http upstream answering with `handler`, closed after the test; resolves to its URL. */
export async function fakeUpstream(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<string> {
  const server = createServer(handler)
  server.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  open.set(
    server,
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  )
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

export interface Got {
  status: number
  headers: Headers
  /** Parsed JSON, or the text when it is not JSON. */
  body: any
}

/** A request with an API key (`null`: none), its answer read. */
export async function call(
  url: string,
  {
    key = 'sk_sandbox_all',
    method = 'GET',
    headers = {},
    body,
  }: { key?: string | null; method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Got> {
  const response = await fetch(url, {
    method,
    headers: { ...(key === null ? {} : { Authorization: `Bearer ${key}` }), ...headers },
    body,
  })
  return { status: response.status, headers: response.headers, body: jsonOrText(await response.text()) }
}

/** Every page of a list, walking `next_cursor`. */
export async function pagesOf(base: string, path: string, key = 'sk_sandbox_all'): Promise<Got[]> {
  const pages: Got[] = []
  let url = path
  for (let i = 0; i < 1_000; i++) {
    const page = await call(base + url, { key })
    pages.push(page)
    if (page.status !== 200 || !page.body.has_more) return pages
    url = `${path}${path.includes('?') ? '&' : '?'}cursor=${page.body.next_cursor}`
  }
  throw new Error(`${path} did not end after 1,000 pages`)
}
