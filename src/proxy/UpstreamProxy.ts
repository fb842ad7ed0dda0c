import { LruMap } from '../data/LruMap.js'
import { bearerToken } from '../http/bearerToken.js'
import { readBodyAsSent } from '../http/body.js'
import { journalEntry } from '../http/journalEntry.js'
import { newRequestId } from '../http/requestId.js'
import { failedReply, type Reply } from '../http/respond.js'
import type { ApiEndpoint as Route } from '../http/Endpoint.js'
import { shownUrl } from '../sandbox/credentials.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import { requestScrubber } from '../sandbox/Scrubber.js'
import { ApiError } from '../schemas/ApiError.js'
import { Organization, type ContractViolation } from '../schemas/index.js'
import { checkUpstreamReply, kindOf, type ContractCheck } from './checkUpstreamReply.js'
import { Drift } from './Drift.js'
import { expectationOf, type Expectation } from './expectationOf.js'
import { forward, type Forwarded } from './forward.js'
import { resolveProxyOptions, type ProxyOptions, type ResolvedProxyOptions } from './proxyOptions.js'
import { Recorder } from './Recorder.js'
import type { Recording } from './recording.js'
import { Walks } from './Walks.js'
import type { FetchRequest } from '../http/FetchRequest.js'

/** Keys whose organization and scopes are remembered (GET /v1/me); past it, the least recently used goes. */
const MAX_KEYS = 1_000
/** Violations a journal entry lists; it counts them all. */
const JOURNALED_VIOLATIONS = 50
/** Statuses whose answer has no body. */
const NO_BODY = new Set([204, 205, 304])
/** Methods the drift report names as they are; any other is `OTHER`, so that the report stays bounded. */
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'])

/**
 * Proxy mode: the API's requests go to a real service (the upstream), and
 * its answers come back as they were (but for one with a URL a browser
 * could run), each held to what the sandbox itself promises
 * (`X-Sandbox-Contract: ok` or `violations=N`), journaled with what broke,
 * counted in the drift report, and, with `record`, kept as a world a
 * sandbox can start from. The control plane and the document stay
 * the sandbox's own.
 *
 * @example
 * const proxy = new UpstreamProxy('https://api.example.com')
 * const response = await proxy.answer(sandbox, request, '/v1/calls', new URL(request.url))
 * proxy.drift.report()
 */
export class UpstreamProxy {
  readonly options: ResolvedProxyOptions
  /** How the upstream's answers differ from the contract (`GET /_sandbox/drift`). */
  readonly drift: Drift
  /** What the upstream answered, kept to start a sandbox from; only with `record`. */
  readonly recorder: Recorder | undefined
  readonly #walks = new Walks()
  /** What GET /v1/me said of each key: its organization and scopes. In memory only. */
  readonly #keys = new LruMap<string, Organization>(MAX_KEYS)
  /** This proxy's entry in `Via`, to know a request of its own that came back to it. */
  readonly #via = `1.1 call-sandbox-${newRequestId().slice(4, 16)}`

  constructor(options: string | ProxyOptions) {
    this.options = resolveProxyOptions(options)
    this.drift = new Drift(this.options.upstream)
    this.recorder = this.options.record ? new Recorder(this.options.upstream) : undefined
  }

  /**
   * Answers one API request (a path under `/v1/`) from the upstream:
   * the body read once → what the contract gives the request, from the
   * request alone → the upstream's answer (502/504 when there is none) →
   * that answer held to the contract, and its place in a walk through a
   * list's pages (refused when it is not JSON, or has a URL of another
   * scheme than http(s)) → what it says of the key (GET /v1/me) →
   * recorded → sent back as it came, with `X-Sandbox-Contract` and `X-Sandbox-Request-Id`
   * → journal and drift report.
   */
  async answer(world: Sandbox, request: FetchRequest, path: string, url: URL, consoleRead = false): Promise<Reply> {
    const started = performance.now()
    const requestId = newRequestId()
    const token = bearerToken(request.headers.get('authorization'))
    let expectation: Expectation | undefined
    let answer: Forwarded | undefined
    let violations: ContractViolation[] = []
    let response: Reply
    try {
      await world.ready
      // A request of this proxy's own, come back: the upstream is this proxy.
      if (request.headers.get('via')?.includes(this.#via)) {
        throw new ApiError(
          'upstream_unreachable',
          `The upstream ${this.options.upstream} is this proxy itself: give --proxy the real service's URL.`,
        )
      }
      // The body, read once: it goes upstream as it came, and the sandbox's own checks read it too.
      const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await readBodyAsSent(request)
      // What the contract gives this request, judged from the request alone.
      expectation = await expectationOf(
        request,
        path,
        url,
        body,
        token === null ? undefined : this.#keys.get(token)?.scopes,
      )
      // The upstream's answer, whole.
      answer = await this.#forward(path + url.search, request.method, request.headers, body)
      // Held to the contract: the answer itself, then its place in a walk through a list's pages.
      const checked = checkUpstreamReply(request.method, expectation, answer)
      violations = [...checked.violations, ...this.#walked(expectation, answer, checked)]
      // An answer that is not JSON is no answer of the API's: the client gets the contract's envelope naming what came.
      if (violations.some(({ rule }) => rule === 'json')) {
        const type = answer.headers.get('content-type') ?? 'no Content-Type'
        throw new ApiError(
          'upstream_not_json',
          `The upstream ${new URL(this.options.upstream).origin} answered ${answer.status} with ${type}, not JSON; GET /_sandbox/drift shows how it began.`,
        )
      }
      // A URL a browser would run rather than follow (javascript:, data:) reaches no client, and is not recorded.
      const unsafe = violations.filter(({ rule }) => rule === 'url')
      if (unsafe.length > 0) throw unsafeUrls(this.options.upstream, unsafe)
      // What the upstream says of the key, and what it answered, kept.
      if (token !== null && expectation.route && answer.status >= 200 && answer.status < 300)
        await this.#learn(token, request, expectation.route, checked)

      const { headers } = answer
      headers.set('X-Sandbox-Contract', violations.length === 0 ? 'ok' : `violations=${violations.length}`)
      headers.set('X-Sandbox-Request-Id', requestId)
      const bodyless = NO_BODY.has(answer.status) || request.method === 'HEAD'
      // @note The length is known: the answer goes out in one piece, not chunked, which saves a write and a wake-up of
      // the client.
      if (!bodyless) headers.set('Content-Length', String(answer.bytes.byteLength))
      response = { status: answer.status, headers, body: bodyless ? null : [answer.bytes] }
    } catch (error) {
      response = await failedReply(world, requestId, request, error)
      response.headers.set('X-Sandbox-Request-Id', requestId)
      if (violations.length > 0) response.headers.set('X-Sandbox-Contract', `violations=${violations.length}`)
    }

    const upstreamRequestId = answer?.headers.get('x-request-id') ?? null
    // What the upstream answered may echo a secret (a 401 page quoting the key): the journal and the report do not.
    // A `got` may be cut short (a page at 80 characters), and end with a secret's beginning.
    const scrubber = requestScrubber(world, request)
    const shownViolations = scrubber.finds
      ? violations.map((violation) => ({
          ...violation,
          field: scrubber.text(violation.field),
          got: scrubber.text(violation.got, true),
        }))
      : violations
    // The console's own reads (`consoleRead`, as the dispatch found it) are not journaled; the drift report still holds
    // the upstream to the contract with them, as what they say is of the upstream, not of the app under test.
    if (!consoleRead)
      world.recordRequest({
        ...journalEntry(world, {
          requestId,
          request,
          path,
          url,
          status: response.status,
          key: token,
          started,
        }),
        contract: {
          upstream_request_id: upstreamRequestId,
          violation_count: violations.length,
          violations: shownViolations.slice(0, JOURNALED_VIOLATIONS),
        },
      })
    const route = expectation?.route
    this.drift.add({
      endpoint: route
        ? `${route.method} ${route.path}`
        : `${METHODS.has(request.method) ? request.method : 'OTHER'} (no such endpoint)`,
      request_id: requestId,
      upstream_request_id: upstreamRequestId,
      request: `${request.method} ${scrubber.text(shownUrl(path + url.search, world.options.adminToken))}`,
      // The upstream's status where it answered: what drifted is its answer, not the proxy's envelope for it.
      status: answer?.status ?? response.status,
      answered: answer !== undefined,
      violations: shownViolations,
    })
    return response
  }

  /**
   * What was recorded so far (with `record`), as a `--world` file holds it.
   *
   * @example
   * writeFileSync('recorded.json', JSON.stringify(sandbox.proxy.recording()))
   */
  recording(): Recording | undefined {
    return this.recorder?.recording()
  }

  /** Starts the drift report and the walks afresh (a reset); the recording stays. */
  clear(): void {
    this.drift.clear()
    this.#walks.clear()
  }

  #forward(
    pathAndQuery: string,
    method: string,
    headers: Headers,
    body: Uint8Array<ArrayBuffer> | undefined,
  ): Promise<Forwarded> {
    const { upstream, timeoutMs, send } = this.options
    return forward({ send, target: upstream + pathAndQuery, method, headers, body, timeoutMs, via: this.#via })
  }

  /** A list page's place in its walk through the pages: no record twice, each page after the last. */
  #walked({ route, query }: Expectation, answer: Forwarded, { body }: ContractCheck): ContractViolation[] {
    if (!route || !query || answer.status !== 200 || !Array.isArray(body?.data) || !('has_more' in body)) return []
    return this.#walks.page(query.cursor as string | undefined, body.data, body.next_cursor)
  }

  /** Learns the key's organization and scopes from GET /v1/me, and records what the answer holds. */
  async #learn(token: string, request: FetchRequest, route: Route, { body, records }: ContractCheck): Promise<void> {
    if (route.path === '/v1/me') {
      const me = Organization.safeParse(records[0])
      if (me.success) this.#remember(token, me.data)
    }
    if (!this.recorder || records.length === 0) return
    const me = this.#keys.get(token) ?? (await this.#askMe(token, request.headers.get('authorization')!))
    if (!me) return
    const kind = route.path === '/v1/me' ? undefined : kindOf(route)
    this.recorder.keep(token, me, kind, records, (body?.meta as { timestamp?: unknown } | undefined)?.timestamp)
  }

  /** Asks the upstream GET /v1/me for a key seen for the first time while recording: whose records are these? */
  async #askMe(token: string, authorization: string): Promise<Organization | undefined> {
    try {
      const answer = await this.#forward(
        '/v1/me',
        'GET',
        new Headers({ authorization, accept: 'application/json' }),
        undefined,
      )
      const me = Organization.safeParse(JSON.parse(new TextDecoder().decode(answer.bytes))?.data)
      if (answer.status !== 200 || !me.success) return undefined
      this.#remember(token, me.data)
      return me.data
    } catch {
      // No organization known: the answer is not recorded; the next one asks again.
      return undefined
    }
  }

  #remember(token: string, me: Organization): void {
    this.#keys.set(token, me)
  }
}

/** Fields a 502 `upstream_unsafe_url` names; it counts the rest. */
const NAMED_FIELDS = 3

function unsafeUrls(upstream: string, unsafe: readonly ContractViolation[]): ApiError {
  const fields = unsafe.slice(0, NAMED_FIELDS).map(({ field }) => field)
  const more = unsafe.length > NAMED_FIELDS ? ` and ${unsafe.length - NAMED_FIELDS} more` : ''
  return new ApiError(
    'upstream_unsafe_url',
    `The upstream ${new URL(upstream).origin} answered ${fields.join(', ')}${more} with a URL that is not http: or https:, which a browser could run: the sandbox passes no such URL on. GET /_sandbox/drift shows what came.`,
  )
}
