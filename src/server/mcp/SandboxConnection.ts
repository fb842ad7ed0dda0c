import { SESSION_PREFIX } from '../../http/paths.js'
import type { ErrorEnvelope } from '../../schemas/index.js'
import { asJson } from './clientData.js'

/** What a client reads of an answer: its status, the headers that say what to do next, and its body. */
export interface ClientView {
  status: number
  headers: Record<string, string>
  /** Parsed when it is JSON, else the text; null without one. */
  body: unknown
}

/** The headers a client acts on; the rest (content length, date) say nothing to it. */
const HEADERS_THAT_MATTER = [
  'x-request-id',
  'location',
  'retry-after',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'allow',
  'www-authenticate',
  'content-type',
]
/** An answer larger than this is cut: a page of 100 calls is some 200 KiB, and an agent reads all it is given. */
const MAX_BODY_BYTES = 2 * 1024 * 1024
/** Longer than any delay the sandbox adds (60 s), so that only a server that stopped answering meets it. */
const TIMEOUT_MS = 120_000

/** A control-plane refusal: its message is the envelope's, with its code and the parameter it names. */
export class SandboxRefusal extends Error {
  constructor(
    readonly status: number,
    readonly error: ErrorEnvelope['error'],
  ) {
    const param = error.param === undefined ? '' : ` (param: ${error.param})`
    const fields = Array.isArray(error.details)
      ? (error.details as { field?: string; message?: string }[]).map(({ field, message }) => ` ${field}: ${message}.`)
      : []
    super(`${status} ${error.code}: ${error.message}${param}${fields.join('')}`)
  }
}

/**
 * One sandbox, over HTTP, as the MCP tools drive it: its API as a client calls it (a key, no admin token), and its
 * control plane with the admin token. The same whether the sandbox runs in this process or elsewhere.
 */
export class SandboxConnection {
  constructor(
    readonly url: string,
    private readonly adminToken: string | undefined,
  ) {}

  /** Where a session's API and control plane are: the bare root for none, `/sessions/{name}` for one. */
  rootOf(session: string | undefined): string {
    return session === undefined ? this.url : `${this.url}${SESSION_PREFIX}/${encodeURIComponent(session)}`
  }

  /** An API request as a client sends it: `body` an object is sent as JSON, a string as it is. */
  async api(request: { method: string; path: string; key?: string; body?: unknown; session?: string }) {
    const headers: Record<string, string> = {}
    if (request.key !== undefined) headers.authorization = `Bearer ${request.key}`
    let body: string | undefined
    if (request.body !== undefined) {
      body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body)
      headers['content-type'] = 'application/json'
    }
    return this.send(`${this.rootOf(request.session)}${request.path}`, { method: request.method, headers, body })
  }

  /** A control-plane request; its answer's `data`, or a `SandboxRefusal` carrying the envelope's error. */
  async control(
    method: string,
    path: string,
    options: {
      session?: string
      query?: URLSearchParams
      body?: unknown
      /** How long it may take to answer (default the longest delay the sandbox adds, and more). */
      timeoutMs?: number
    } = {},
  ): Promise<unknown> {
    const headers: Record<string, string> = {}
    if (this.adminToken !== undefined) headers.authorization = `Bearer ${this.adminToken}`
    if (options.body !== undefined) headers['content-type'] = 'application/json'
    const search = options.query && options.query.size > 0 ? `?${options.query}` : ''
    const { status, body } = await this.send(
      `${this.rootOf(options.session)}${path}${search}`,
      { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) },
      options.timeoutMs,
    )
    const envelope = body as { data?: unknown; error?: ErrorEnvelope['error'] } | null
    if (envelope?.error) throw new SandboxRefusal(status, envelope.error)
    if (status >= 400 || envelope === null || typeof envelope !== 'object')
      throw new Error(`${method} ${path} answered ${status} without the sandbox's envelope: is ${this.url} a sandbox?`)
    return 'data' in envelope ? envelope.data : envelope
  }

  /** The OpenAPI document of a root, as text. */
  async openApiDocument(session?: string): Promise<string> {
    const { status, body } = await this.send(`${this.rootOf(session)}/openapi.json`, { method: 'GET', headers: {} })
    if (status !== 200) throw new Error(`GET /openapi.json answered ${status}.`)
    return asJson(body)
  }

  private async send(
    url: string,
    init: { method: string; headers: Record<string, string>; body?: string },
    timeoutMs = TIMEOUT_MS,
  ) {
    let response: Response
    try {
      response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) })
    } catch (error) {
      throw new ConnectionFailure(url, error, timeoutMs)
    }
    const headers: Record<string, string> = {}
    for (const name of HEADERS_THAT_MATTER) {
      const value = response.headers.get(name)
      if (value !== null) headers[name] = value
    }
    const text = await readCapped(response, MAX_BODY_BYTES)
    return { status: response.status, headers, body: parsedBody(text) } satisfies ClientView
  }
}

/** The request had no answer: the sandbox is not there, or it closed the connection (a fault rule's `network`). */
export class ConnectionFailure extends Error {
  constructor(url: string, cause: unknown, timeoutMs: number) {
    const reason =
      (cause as Error)?.name === 'TimeoutError'
        ? `none within ${timeoutMs / 1_000} s`
        : ((cause as { cause?: { code?: string } })?.cause?.code ?? (cause as Error)?.message ?? String(cause))
    super(`No answer from ${new URL(url).origin}: ${reason}.`)
  }
}

function parsedBody(text: string): unknown {
  if (text === '') return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** The body as text, cut at `most` bytes (then said so): what a server sends is read no further. */
async function readCapped(response: Response, most: number): Promise<string> {
  if (!response.body) return ''
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    chunks.push(value)
    size += value.byteLength
    if (size > most) {
      await reader.cancel()
      const kept = Buffer.concat(chunks).subarray(0, most).toString('utf8')
      return `${kept}… (cut at ${most} bytes)`
    }
  }
  return Buffer.concat(chunks).toString('utf8')
}
