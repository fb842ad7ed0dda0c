import type { Call, CallWithMessages, Lead, Organization } from 'call-sandbox'

/**
 * Whether a sandbox answers: the service worker (in development, or in a build made with VITE_CALL_SANDBOX=1, as
 * main.tsx starts it) or the standalone sandbox named by VITE_CALL_SANDBOX_URL. In a production build, false: the
 * app asks its own origin with no key, and the sandbox's key and sessions are left out of the bundle.
 */
const SANDBOX = import.meta.env.DEV || import.meta.env.VITE_CALL_SANDBOX === '1' || !!import.meta.env.VITE_CALL_SANDBOX_URL

/**
 * Where the API is: the standalone sandbox when VITE_CALL_SANDBOX_URL is set,
 * else this origin (the service worker answers, or your backend); with `?session=<name>`
 * in the page's address, and a sandbox answering, that session's root of it.
 */
const session = SANDBOX ? new URLSearchParams(location.search).get('session') : null
export const API_URL = (import.meta.env.VITE_CALL_SANDBOX_URL ?? '') + (session ? `/sessions/${encodeURIComponent(session)}` : '')
// A secret key has no place in a bundle: in production, your backend at this origin adds it.
const HEADERS: Record<string, string> = SANDBOX ? { Authorization: 'Bearer sk_sandbox_all' } : {}

export interface Page<T> {
  data: T[]
  has_more: boolean
  next_cursor: string | null
}

/** An answer that is not a success, or no answer at all (status 0). */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: { required_scope?: string } = {},
    readonly retryAfter: number | null = null,
  ) {
    super(message)
  }
}

async function get<T>(path: string, signal?: AbortSignal): Promise<T> {
  let response: Response
  try {
    response = await fetch(API_URL + path, { headers: HEADERS, signal })
  } catch (error) {
    if (signal?.aborted) throw error
    throw new ApiProblem(0, 'network_error', 'The API could not be reached.')
  }
  const body = await response.json().catch(() => undefined)
  if (body?.error) {
    const retryAfter = response.headers.get('Retry-After')
    throw new ApiProblem(response.status, body.error.code, body.error.message, body.error.details, retryAfter === null ? null : Number(retryAfter))
  }
  if (!response.ok || body === undefined) {
    throw new ApiProblem(response.status, 'unexpected_answer', `${API_URL || location.origin}${path} answered ${response.status} without the API's JSON.`)
  }
  return body as T
}

export const api = {
  me: (signal?: AbortSignal) => get<{ data: Organization }>('/v1/me', signal).then((body) => body.data),
  calls: (query: URLSearchParams, signal?: AbortSignal) => get<Page<Call>>(`/v1/calls?${query}`, signal),
  call: (id: string, signal?: AbortSignal) => get<{ data: CallWithMessages }>(`/v1/calls/${id}`, signal).then((body) => body.data),
  leads: (query: URLSearchParams, signal?: AbortSignal) => get<Page<Lead>>(`/v1/leads?${query}`, signal),
}
