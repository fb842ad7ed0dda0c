import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { AddressInfo, Socket } from 'node:net'
import { createSandbox, type SandboxWithHandlers } from '../handlers/createSandbox.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import type { CreateSandboxOptions } from '../handlers/createSandbox.js'
import { ApiError } from '../schemas/ApiError.js'
import { methodOutsideFetch } from '../handlers/dispatch.js'
import { errorReply, type Reply } from '../http/respond.js'
import { newRequestId } from '../http/requestId.js'
import { type AppOptions, serverListener } from './createApp.js'
import { controlAccess } from './controlAccess.js'
import { failArrival } from './fetchExchange.js'
import { thousands } from '../text/thousands.js'
import { sendingOverHttp } from './sendOverHttp.js'
import type { ReplicaWaits } from './redisConnection.js'
import { restoreWorld } from './restoreWorld.js'
import { parseSessionTtl } from '../sessions/expiry.js'
import { parseJournalBytes } from '../sandbox/JournalBudget.js'
import type { FirstRead } from '../sessions/Store.js'
import { openStore } from './storeBackends.js'
import { readRecordingFile, RecordingFileError, startRecording, worldOptionsOf } from './recordingFile.js'

/** Request line and headers together, the query string included; Node's default is 16 KiB. */
const MAX_HEADER_BYTES = 64 * 1024
/** How long a request may take to arrive, headers and body, from its first byte (`--request-timeout`). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000
/** The bounds of `requestTimeout`: Node checks its connections every so often, so not less than that. */
export const REQUEST_TIMEOUT_RANGE = { min: 100, max: 3_600_000 } as const

/** The server answers at its own origin, so a sandbox's `baseUrl` has no place here. */
export interface ServerOptions extends Omit<CreateSandboxOptions, 'baseUrl'>, Omit<AppOptions, 'proxy'> {
  /** A data file that keeps the sandbox's writes across restarts (`--data`). */
  data?: string
  /**
   * `redis://host:port[/db]`, or a Redis Cluster's nodes (`redis://host:port,host:port`, or any one of them): every
   * session's writes in Redis, shared by every server given the same store (`--store`).
   */
  store?: string
  /** With `store`: how many replicas must have a write before it is answered; default `auto` (`--store-replicas`). */
  storeReplicas?: ReplicaWaits
  /**
   * With `store`: milliseconds a command to Redis waits for its answer (default 2,000); then the request is answered
   * 503 `storage_unavailable`, never held while Redis stalls (`--store-timeout`).
   */
  storeTimeout?: number
  /** With `proxy`: keep what the upstream answers in this new file, a world to start from later (`--record`). */
  record?: string
  /** Start from a recording (a file `record` wrote) instead of the seed (`--world`). */
  world?: string
  /** `/_sandbox/metrics`, counting every answer; default true (`--no-metrics`: none, nothing counted). */
  metrics?: boolean
  /** Default 4010; 0 picks a free port. */
  port?: number
  /** Default 127.0.0.1. */
  host?: string
  /**
   * Milliseconds a request may take to arrive, from its first byte to its body's last (default 30,000): past it,
   * 408 `request_timeout` and the connection closes (`--request-timeout`). Answering takes what it takes (a `Prefer:
   * delay`, a slow upstream): the bound is on receiving.
   */
  requestTimeout?: number
}

export interface RunningServer {
  /** Like `http://127.0.0.1:4010`. */
  url: string
  sandbox: SandboxWithHandlers
  server: Server
  /** With `data`: what the data file held at the start (entries of its log, sessions), for the start-up line. */
  restored?: { path: string; entries: number; sessions: number; writes: number }
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
  const {
    port = 4010,
    host = '127.0.0.1',
    quiet,
    log,
    logFormat,
    metrics: withMetrics = true,
    data,
    store: storeUrl,
    storeReplicas,
    storeTimeout,
    record,
    world,
    allowedHosts,
    allowedOrigins,
    requestTimeout = DEFAULT_REQUEST_TIMEOUT_MS,
    ...given
  } = options
  checkRequestTimeout(requestTimeout)
  if (!isLoopback(host) && given.adminToken === undefined) {
    throw new Error(
      `bound to ${host}, which is not loopback, the control plane would let anyone on the network reset the sandbox: give an admin token (--admin-token), or bind 127.0.0.1.`,
    )
  }
  // Its errors (a list that is not one of host names or origins) before any file or store is opened.
  controlAccess(given.adminToken, { allowedHosts, allowedOrigins })
  const sandboxOptions = withRecording(given, record, world)
  // A named session's keys expire in a store by the rule its memory does (`--session-ttl`).
  const sessionTtlMs = parseSessionTtl(given.sessionTtl) ?? 0
  // A fleet's limits hold in its store as a server's do in its memory: the journals' bytes, the sessions.
  const limits = {
    journalBytes: given.journalBytes === undefined ? undefined : parseJournalBytes(given.journalBytes),
    sessionLimit: given.sessionLimit,
  }
  const store = await openStore(
    { data, store: storeUrl },
    { replicas: storeReplicas, sessionTtlMs, timeoutMs: storeTimeout, ...limits },
  )
  let sandbox: SandboxWithHandlers
  let read: FirstRead | undefined
  try {
    // A saved world is seeded again as it was: at the same instant, with the same clock, in the same scenario.
    const saved = store?.seededFrom
    sandbox = createFrom(
      saved
        ? {
            ...sandboxOptions,
            now: sandboxOptions.now ?? saved.seeded_at,
            clock: saved.clock,
            scenario: sandboxOptions.scenario ?? saved.scenario,
          }
        : sandboxOptions,
      world,
    )
    // No live call of its own before it reaches its store (a fleet's: another server's call of the same arrival).
    if (store) sandbox.waitForStore()
    await sandbox.ready
    if (store) read = await restoreWorld(sandbox, store)
  } catch (error) {
    await store?.close()
    throw error
  }
  const restored =
    data === undefined
      ? undefined
      : {
          path: data,
          entries: read?.logged ?? 0,
          sessions: read?.sessions.length ?? 0,
          writes: sandbox.writeCount,
        }
  const recording = record === undefined ? undefined : startRecording(record, sandbox.proxy!)
  const listener = await serverListener(
    sandbox,
    { quiet, log, logFormat, allowedHosts, allowedOrigins, metrics: withMetrics },
    store,
  )
  // A request without a Host, or with an Expect Node would refuse itself (an empty 400 or 417), goes to the
  // listener, which refuses it in the contract's envelope.
  const server = createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES,
      requireHostHeader: false,
      // The headers are part of the request: they get no longer than the whole of it.
      requestTimeout,
      headersTimeout: requestTimeout,
      // @note Node looks for overdue requests every so often (30 s by default), which would let one take up to twice
      // its time; every second at most, a check costs a walk over the connections.
      connectionsCheckingInterval: Math.min(1_000, requestTimeout),
    },
    listener,
  )
  server.on('checkExpectation', listener)
  // The answer under way on each connection, if any: what a request timeout on it must not write over.
  const answering = new WeakMap<Socket, ServerResponse>()
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    answering.set(request.socket, response)
    response.once('close', () => answering.get(request.socket) === response && answering.delete(request.socket))
  })
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) =>
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? answerOverdue(sandbox, requestTimeout, socket, answering.get(socket))
      : answerUnreadable(sandbox, error, socket),
  )
  // Node hands CONNECT to this event, never to the app.
  server.on('connect', (request: IncomingMessage, socket: Duplex) =>
    writeAndClose(socket, methodOutsideFetch(sandbox, 'CONNECT', request.url ?? '/')),
  )
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
    restored,
    close: async () => {
      await new Promise<void>((resolve, reject) => {
        closing = true
        sandbox.stop()
        sandbox.sessions.stop()
        recording?.flush()
        server.close((error) => (error ? reject(error) : resolve()))
        server.closeIdleConnections()
        // @note Requests still running get five seconds; then their connections go too.
        setTimeout(() => server.closeAllConnections(), 5_000).unref()
      })
      // Writes made in process (a test's addCall, a clock moved) are kept before the file is let go.
      await sandbox.idle().catch(() => undefined)
      await store?.close()
    },
  }
}

/**
 * The options with `record` (proxy mode, recording) and `world` (a
 * recording's organizations, records and instant) in them; a proxy sends
 * over node:http.
 */
function withRecording(
  options: CreateSandboxOptions,
  record: string | undefined,
  world: string | undefined,
): CreateSandboxOptions {
  const { proxy } = options
  if (record !== undefined && proxy === undefined)
    throw new Error('--record keeps what the upstream answers: give --proxy <upstream URL> too.')
  if (world !== undefined && proxy !== undefined)
    throw new Error(
      '--world and --proxy: in proxy mode the upstream answers the API, not a recorded world. Give one of them.',
    )
  if (world !== undefined && options.organizations !== undefined)
    throw new Error('--world and --organizations: a recording brings its own organizations and keys. Give one of them.')
  if (proxy !== undefined)
    return { ...options, proxy: { ...sendingOverHttp(proxy), ...(record !== undefined && { record: true }) } }
  if (world !== undefined) {
    const recorded = worldOptionsOf(readRecordingFile(world))
    return { ...options, ...recorded, now: options.now ?? recorded.now }
  }
  return options
}

/** The sandbox of the options; records of a recording that do not fit are the recording's error, not the options'. */
function createFrom(options: CreateSandboxOptions, world: string | undefined): SandboxWithHandlers {
  try {
    return createSandbox(options)
  } catch (error) {
    if (world === undefined) throw error
    throw new RecordingFileError(`${world} does not fit a sandbox: ${(error as Error).message}`)
  }
}

/**
 * What Node cannot parse as HTTP (a header block over 64 KiB, a malformed
 * request line) still gets a JSON error in the envelope, then the
 * connection closes.
 */
function answerUnreadable(sandbox: Sandbox, error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy()
  const message =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? `The request line and headers are over ${MAX_HEADER_BYTES / 1024} KiB.`
      : `The request is not valid HTTP (${error.code ?? error.message}).`
  writeAndClose(socket, errorReply(sandbox, newRequestId(), new ApiError('invalid_parameter', message)))
}

/**
 * A request that did not arrive within `requestTimeout`: 408 `request_timeout`, and the connection closes. When the
 * sandbox is answering it already (`answering`: its headers came, its body is late), its body's read ends with the
 * 408, so that the answer is the sandbox's own (its request id, journaled and logged); else it is written here, as
 * Node would write its own 408, unless an answer has begun on the connection.
 */
function answerOverdue(sandbox: Sandbox, requestTimeout: number, socket: Socket, answering?: ServerResponse): void {
  const error = new ApiError(
    'request_timeout',
    `The request did not arrive in full within ${thousands(requestTimeout)} ms of its first byte (--request-timeout).`,
  )
  if (answering && !answering.headersSent) {
    answering.setHeader('Connection', 'close')
    if (failArrival(answering.req, error)) return
  }
  if (!socket.writable || answering?.headersSent) return void socket.destroy()
  writeAndClose(socket, errorReply(sandbox, newRequestId(), error))
}

/** A request timeout out of `REQUEST_TIMEOUT_RANGE`, refused with a message naming the option. */
function checkRequestTimeout(ms: number): void {
  const { min, max } = REQUEST_TIMEOUT_RANGE
  if (!Number.isSafeInteger(ms) || ms < min || ms > max)
    throw new TypeError(`requestTimeout must be milliseconds from ${min} to ${thousands(max)}; got ${String(ms)}.`)
}

/** Writes a reply straight to a socket Node gave up on, and closes it. */
function writeAndClose(socket: Duplex, { status, headers, body }: Reply): void {
  const head = [...headers].map(([name, value]) => `${name}: ${value}\r\n`).join('')
  let length = 0
  for (const chunk of body ?? []) length += chunk.byteLength
  socket.write(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${head}Content-Length: ${length}\r\nConnection: close\r\n\r\n`,
  )
  for (const chunk of body ?? []) socket.write(chunk)
  socket.end()
}

/** Whether a host to bind is loopback only: 127.0.0.0/8, ::1, localhost. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host)
}
