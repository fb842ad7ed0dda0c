import type { CreateSandboxOptions } from '../../src/index.js'
import type { Answer, RequestOptions, Transport } from './transports.js'

/** A transport factory of `transports`: in process or over HTTP. */
export type MakeTransport = (options?: CreateSandboxOptions) => Promise<Transport>

/**
 * Runs `use` with a transport of its own options, then stops its live mode
 * and closes it. Two in-process transports share one origin, so a test never
 * holds two open at once.
 *
 * @example
 * await using(inProcess, { rateLimit: '3/min' }, async (api) => { ... })
 */
export async function using<T>(
  make: MakeTransport,
  options: CreateSandboxOptions,
  use: (api: Transport) => Promise<T>,
): Promise<T> {
  const api = await make(options)
  try {
    return await use(api)
  } finally {
    api.sandbox.stop()
    await api.close()
  }
}

/**
 * A POST with a JSON body (`Content-Type: application/json`); without a body
 * none is sent. No API key unless given: the control plane takes none.
 *
 * @example
 * await postJson(api, '/_sandbox/calls', { status: 'in-progress' })
 */
export function postJson(api: Transport, path: string, body?: unknown, options: RequestOptions = {}): Promise<Answer> {
  return api.request(path, {
    method: 'POST',
    key: null,
    ...options,
    ...(body !== undefined && {
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'Content-Type': 'application/json', ...options.headers },
    }),
  })
}

/** An answer and the real milliseconds it took: for lower bounds of delays only. */
export async function timed(request: Promise<Answer>): Promise<Answer & { ms: number }> {
  const started = performance.now()
  const answer = await request
  return { ...answer, ms: performance.now() - started }
}

/** The data of a successful answer; fails with the error envelope otherwise. */
export function dataOf(answer: Answer, status = 200): any {
  if (answer.status !== status)
    throw new Error(`expected ${status}, got ${answer.status}: ${JSON.stringify(answer.body)}`)
  return answer.body.data
}
