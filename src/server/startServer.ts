import { createServer, STATUS_CODES, type IncomingMessage, type Server } from 'node:http'
import type { Duplex } from 'node:stream'
import type { AddressInfo } from 'node:net'
import { createSandbox, type SandboxWithHandlers } from '../handlers/createSandbox.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import type { CreateSandboxOptions } from '../handlers/createSandbox.js'
import { ApiError } from '../schemas/ApiError.js'
import { methodOutsideFetch } from '../handlers/answer.js'
import { errorResponse } from '../http/respond.js'
import { newRequestId } from '../http/requestId.js'
import { createApp, type AppOptions } from './createApp.js'
import { DataFileError, readDataFile, restoreDataFile, writeDataFile } from './dataFile.js'

/** Request line and headers together, the query string included; Node's default is 16 KiB. */
const MAX_HEADER_BYTES = 64 * 1024

/** The server answers at its own origin, so a sandbox's `baseUrl` has no place here. */
export interface ServerOptions extends Omit<CreateSandboxOptions, 'baseUrl'>, AppOptions {
  /** A data file that keeps the sandbox's writes across restarts (`--data`). */
  data?: string
  /** Default 4010; 0 picks a free port. */
  port?: number
  /** Default 127.0.0.1. */
  host?: string
}

export interface RunningServer {
  /** Like `http://127.0.0.1:4010`. */
  url: string
  sandbox: SandboxWithHandlers
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
  const { port = 4010, host = '127.0.0.1', quiet, log, data, ...sandboxOptions } = options
  if (!isLoopback(host) && sandboxOptions.adminToken === undefined) {
    throw new Error(
      `bound to ${host}, which is not loopback, the control plane would let anyone on the network reset the sandbox: give an admin token (--admin-token), or bind 127.0.0.1.`,
    )
  }
  const saved = data === undefined ? undefined : readDataFile(data)
  // A saved world is seeded again as it was: at the same instant, with the same clock, in the same scenario.
  const sandbox = createSandbox(
    saved ? { ...sandboxOptions, now: sandboxOptions.now ?? saved.seeded_at, clock: saved.clock, scenario: sandboxOptions.scenario ?? saved.scenario } : sandboxOptions,
  )
  await sandbox.ready
  if (data !== undefined) {
    if (saved) await restoreDataFile(sandbox, data, saved)
    try {
      writeDataFile(data, sandbox)
    } catch (error) {
      throw new DataFileError(`cannot write the data file ${data}: ${(error as Error).message}`)
    }
    const save = () => {
      try {
        writeDataFile(data, sandbox)
      } catch (error) {
        console.error(`[call-sandbox] could not save ${data}: ${(error as Error).message}`)
      }
    }
    sandbox.onChange(save)
    sandbox.sessions.onChange(save)
  }
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, createApp(sandbox, { quiet, log }))
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => void answerUnreadable(sandbox, error, socket))
  // Node hands CONNECT to this event, never to the app.
  server.on('connect', (request: IncomingMessage, socket: Duplex) => void writeAndClose(socket, methodOutsideFetch(sandbox, 'CONNECT', request.url ?? '/')))
  server.listen(port, host)
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
        sandbox.stop()
        sandbox.sessions.stop()
        server.close((error) => (error ? reject(error) : resolve()))
        server.closeIdleConnections()
        // @note Requests still running get five seconds; then their connections go too.
        setTimeout(() => server.closeAllConnections(), 5_000).unref()
      }),
  }
}

/**
 * What Node cannot parse as HTTP (a header block over 64 KiB, a malformed
 * request line) still gets a JSON error in the envelope, then the
 * connection closes.
 */
async function answerUnreadable(sandbox: Sandbox, error: NodeJS.ErrnoException, socket: Duplex): Promise<void> {
  if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy()
  const message =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? `The request line and headers are over ${MAX_HEADER_BYTES / 1024} KiB.`
      : `The request is not valid HTTP (${error.code ?? error.message}).`
  await writeAndClose(socket, errorResponse(sandbox, newRequestId(), new ApiError('invalid_parameter', message)))
}

/** Writes an answer straight to a socket Node gave up on, and closes it. */
async function writeAndClose(socket: Duplex, answer: Response): Promise<void> {
  const body = await answer.text()
  const headers = [...answer.headers].map(([name, value]) => `${name}: ${value}\r\n`).join('')
  const status = `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}\r\n`
  socket.end(`${status}${headers}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
}

/** Whether a host to bind is loopback only: 127.0.0.0/8, ::1, localhost. */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host)
}
