import { MAX_LATENCY_MS } from '../sandbox/latency.js'
import type { ApiKey, Sandbox } from '../sandbox/Sandbox.js'
import { ApiError } from '../schemas/ApiError.js'
import { FORCEABLE_STATUSES } from '../schemas/faultRule.js'
import { echoed } from '../text/echoed.js'
import { thousands } from '../text/thousands.js'
import { type ApiEndpoint, type Endpoint, scopeOf, successStatusOf } from './Endpoint.js'

/** What a request asked for with `Prefer` (RFC 7240), and how to say it was applied. */
export interface Preferences {
  /** Answer with this status's error instead. */
  code?: number
  /** Wait this many milliseconds before answering. */
  delay?: number
  /** For the `Preference-Applied` header. */
  readonly applied: readonly string[]
}

export { FORCEABLE_STATUSES }

/**
 * Reads `Prefer: code=<status>` and `Prefer: delay=<ms>`, in one header or
 * several (`Prefer: code=429, delay=200`). Other preferences are ignored, as
 * RFC 7240 asks; a bad value of these two is a 400 naming `Prefer`.
 *
 * @example
 * parsePrefer('code=503, delay=1500', route) // { code: 503, delay: 1500, applied: ['code=503', 'delay=1500'] }
 */
export function parsePrefer(header: string | null, route: ApiEndpoint): Preferences {
  if (header === null) return NO_PREFERENCES
  const applied: string[] = []
  const preferences: Preferences = { applied }
  for (const part of header.split(',')) {
    const [token = '', ...rest] = part.split(';')[0]!.split('=')
    const name = token.trim().toLowerCase()
    if (name !== 'code' && name !== 'delay') continue
    const raw = rest
      .join('=')
      .trim()
      .replace(/^"(.*)"$/, '$1')
    if (name === 'code' && preferences.code === undefined) {
      const code = Number(raw)
      const forceable = (FORCEABLE_STATUSES as readonly number[]).includes(code)
      if (!/^\d{3}$/.test(raw) || !(forceable || code === successStatusOf(route))) {
        throw preferProblem(
          `Prefer: code= takes ${successStatusOf(route)} or an error status: ${FORCEABLE_STATUSES.join(', ')}; got "${echoed(raw)}".`,
        )
      }
      preferences.code = code
      applied.push(`code=${code}`)
    } else if (name === 'delay' && preferences.delay === undefined) {
      if (!/^\d{1,5}$/.test(raw) || Number(raw) > MAX_LATENCY_MS) {
        throw preferProblem(
          `Prefer: delay= takes milliseconds from 0 to ${thousands(MAX_LATENCY_MS)}; got "${echoed(raw)}".`,
        )
      }
      preferences.delay = Number(raw)
      applied.push(`delay=${preferences.delay}`)
    }
  }
  return preferences
}

/** What a request without `Prefer` asks for: nothing, the same for every one. */
export const NO_PREFERENCES: Preferences = Object.freeze({ applied: Object.freeze([]) })

function preferProblem(message: string): ApiError {
  return new ApiError('invalid_parameter', message, { param: 'Prefer' })
}

/**
 * The error a status stands for, as the route would give it, for
 * `Prefer: code=` and for the simulated failures of `errorRate`.
 *
 * @example
 * forcedError(503, { sandbox, route, apiKey, endpoints: routes }).status // 503
 */
export function forcedError(
  status: number,
  {
    sandbox,
    route,
    apiKey,
    endpoints,
    because,
  }: {
    sandbox: Sandbox
    route: ApiEndpoint
    /** The key presented, when there is one: a fault rule fails a request before its key is checked. */
    apiKey: ApiKey | undefined
    endpoints: readonly Endpoint[]
    /** Why it is answered so, when not asked for by `Prefer` or a simulated failure (a fault rule). */
    because?: string
  },
): ApiError {
  const asked =
    because ?? `The sandbox answers ${status} because it was asked to (Prefer: code=${status}, or a simulated failure).`
  switch (status) {
    case 400:
      return new ApiError('invalid_parameter', asked)
    case 401:
      return new ApiError('unauthorized', asked)
    case 403:
      return new ApiError('insufficient_scope', asked, {
        details: { required_scope: scopeOf(route), key_scopes: [...(apiKey?.scopes ?? [])] },
      })
    case 404:
      return new ApiError('not_found', asked)
    case 405: {
      // Allow lists every method the path takes, as a real 405 of it does.
      const allowed = endpoints.filter(({ path }) => path === route.path).map(({ method }) => method)
      return new ApiError('method_not_allowed', asked, { headers: { Allow: allowed.join(', ') } })
    }
    case 409: {
      // A request with no key of the sandbox's (a fault rule meets it before its key is checked) is shown no record.
      const organization = apiKey?.organization.organization_id
      const newest = organization && sandbox.db.page('contacts', organization, { limit: 1 }).records[0]
      return new ApiError('contact_exists', asked, { details: { contact_id: newest ? newest.id : null } })
    }
    case 413:
      return new ApiError('payload_too_large', asked)
    case 415:
      return new ApiError('unsupported_media_type', asked)
    case 422:
      return new ApiError('validation_failed', asked, {
        details: [
          {
            field: 'phone',
            code: 'invalid_format',
            message: 'phone must be an E.164 phone number such as +14155550123',
          },
        ],
      })
    case 429:
      return new ApiError('rate_limited', asked, { headers: { 'Retry-After': '1' } })
    case 503:
      return new ApiError('service_unavailable', asked, { headers: { 'Retry-After': '1' } })
    default:
      return new ApiError('internal_error', asked)
  }
}
