import { expect, vi } from 'vitest'
import type { RunningServer, ServerOptions } from '../../src/server/startServer.js'
import { sandboxServer } from './proxies.js'

/* What the tests of the credentials share: a leak check, and a server whose log they read. */

/** Any run of 5 characters of `secret` in `text`: more than the last 4 a credential may show. */
export function leaked(text: string, secret: string): string | undefined {
  for (let start = 0; start + 5 <= secret.length; start++) {
    const run = secret.slice(start, start + 5)
    if (text.includes(run)) return run
  }
  return undefined
}

export function expectNoLeak(text: string, secrets: readonly string[]): void {
  for (const secret of secrets) expect(leaked(text, secret), `${secret} in ${text}`).toBeUndefined()
}

/** A standalone sandbox writing its log (JSON unless told) into `lines`. */
export async function loggedServer(options: ServerOptions = {}): Promise<{ server: RunningServer; lines: string[] }> {
  const lines: string[] = []
  const server = await sandboxServer({
    logFormat: 'json',
    ...options,
    quiet: false,
    log: (line) => lines.push(line),
  })
  return { server, lines }
}

/** The server's JSON log lines, once there are `count` of them (each is written once its answer has gone out). */
export async function logLines(lines: string[], count: number): Promise<any[]> {
  await vi.waitFor(() => expect(lines).toHaveLength(count))
  return lines.map((line) => JSON.parse(line))
}
