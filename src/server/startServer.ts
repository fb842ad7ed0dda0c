import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createSandbox, type Sandbox } from '../sandbox/Sandbox.js'
import type { SandboxOptions } from '../sandbox/options.js'
import { createApp, type AppOptions } from './createApp.js'

export interface ServerOptions extends SandboxOptions, AppOptions {
  /** Default 4010; 0 picks a free port. */
  port?: number
  /** Default 127.0.0.1. */
  host?: string
}

export interface RunningServer {
  /** Like `http://127.0.0.1:4010`. */
  url: string
  sandbox: Sandbox
  server: Server
  /** Stops taking connections, ends idle ones, and resolves once all are closed. */
  close(): Promise<void>
}

/**
 * Seeds a sandbox and serves it over HTTP; resolves once it listens.
 *
 * @example
 * const { url, close } = await startServer({ port: 0, quiet: true })
 */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const { port = 4010, host = '127.0.0.1', quiet, latency, log, ...sandboxOptions } = options
  const sandbox = createSandbox(sandboxOptions)
  await sandbox.ready
  const server = createApp(sandbox, { quiet, latency, log }).listen(port, host)
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve)
    server.once('error', reject)
  })
  let closing = false
  // While closing, a connection is ended as soon as its answer is out, not kept alive.
  server.on('request', (_request, response) => {
    response.once('finish', () => closing && setImmediate(() => server.closeIdleConnections()))
  })
  const address = server.address() as AddressInfo
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${shownHost}:${address.port}`,
    sandbox,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        closing = true
        server.close((error) => (error ? reject(error) : resolve()))
        server.closeIdleConnections()
        // @note Requests still running get five seconds; then their connections go too.
        setTimeout(() => server.closeAllConnections(), 5_000).unref()
      }),
  }
}
