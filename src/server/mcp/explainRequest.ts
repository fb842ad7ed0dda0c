import type { ErrorEnvelope, JournalEntry, KeyInfo } from '../../schemas/index.js'

type ApiErrorBody = ErrorEnvelope['error']

/** What a refusal's `details` may hold: the scope a 403 lacked, the nearest name to an unknown one, a 422's fields. */
interface RefusalDetails {
  required_scope?: string
  key_scopes?: string[]
  did_you_mean?: string
}

/** A journal entry as `list_requests` shows it: what was asked and answered, and why it was refused. */
export interface RequestSummary {
  request_id: string
  method: string
  path: string
  query: JournalEntry['query']
  status: number
  key: string | null
  timestamp: string
  fault?: string
  /** The refusal's error (code, message, param, details: the near miss), or why it cannot be read. */
  reason?: ApiErrorBody | string
}

export function summaryOf(entry: JournalEntry): RequestSummary {
  const { request_id, method, path, query, status, key, timestamp, fault } = entry
  const reason = status >= 400 || status === 0 ? reasonOf(entry) : undefined
  return {
    request_id,
    method,
    path,
    query,
    status,
    key,
    timestamp,
    ...(fault !== undefined && { fault }),
    ...(reason !== undefined && { reason }),
  }
}

/** The error the response carried, read from the journal's copy of its body. */
function reasonOf(entry: JournalEntry): ApiErrorBody | string {
  if (entry.status === 0) return 'No answer: the connection was closed (a fault rule with "error": "network").'
  const body = entry.response?.body
  if (body === undefined || body === null) return 'The journal kept no body of this response.'
  if (entry.response?.body_truncated) return 'The journal cut the body of this response; its error cannot be read.'
  try {
    const error = (JSON.parse(body) as Partial<ErrorEnvelope>).error
    if (error) return error
  } catch {}
  return 'The response body is not the error envelope.'
}

/**
 * One request in words: what was sent, what came back, why, and what to change. The hints are the console's (the
 * parameter, the missing scope, did you mean), with what an agent can act on beside them: which of the sandbox's keys
 * has the scope, the tool that undoes a fault rule.
 */
export function explain(entry: JournalEntry, keys: readonly KeyInfo[]): string {
  // As the sandbox read it, decoded: a + sent unencoded shows as the space it became.
  const query = Object.entries(entry.query)
    .flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((one) => `${name}=${one}`))
    .join('&')
  const sent = [
    `Sent: ${entry.method} ${entry.path}${query ? `?${query}` : ''} (the query as the sandbox read it, decoded), ${entry.key === null ? 'without a key' : `with the key ${entry.key}`}, at ${entry.timestamp} (sandbox clock).`,
  ]
  if (entry.request?.body) sent.push(`Request body: ${entry.request.body}`)
  const reason = summaryOf(entry).reason
  const answered = [`Answered: ${entry.status === 0 ? 'nothing' : entry.status} (request id ${entry.request_id}).`]
  if (entry.response?.body) answered.push(`Response body: ${entry.response.body}`)
  const why = typeof reason === 'object' ? `Why: ${reason.code}: ${reason.message}` : reason && `Why: ${reason}`
  const changes = changesFor(entry, reason, keys)
  return [
    ...sent,
    ...answered,
    ...(why ? [why] : []),
    ...(changes.length > 0 ? ['What to change:', ...changes.map((change) => `- ${change}`)] : []),
  ].join('\n')
}

function changesFor(entry: JournalEntry, reason: ApiErrorBody | string | undefined, keys: readonly KeyInfo[]) {
  const changes: string[] = []
  if (entry.fault !== undefined)
    changes.push(
      `A fault rule (${entry.fault}) made this answer, not the client: remove it (remove_fault) or let it run out.`,
    )
  if (entry.status < 400 && entry.status !== 0) return ['Nothing: the request succeeded.']
  if (typeof reason !== 'object') return changes
  const details = (Array.isArray(reason.details) ? {} : (reason.details ?? {})) as RefusalDetails
  const forced = entry.request?.headers.prefer?.includes('code=')
  if (forced)
    changes.push(`The request asked for this error (Prefer: ${entry.request?.headers.prefer}): drop the header.`)
  if (reason.param !== undefined && reason.code !== 'unknown_parameter') changes.push(`The parameter: ${reason.param}.`)
  if (details.did_you_mean !== undefined) {
    const instead = reason.code === 'unknown_parameter' ? ` instead of ${reason.param}` : ''
    changes.push(`Did you mean ${details.did_you_mean}? Send that${instead}.`)
  } else if (reason.code === 'unknown_parameter') {
    changes.push(`Drop ${reason.param}: the endpoint does not take it (the message lists those it does).`)
  }
  if (details.required_scope !== undefined) changes.push(scopeHint(entry, details, keys))
  if (Array.isArray(reason.details))
    for (const { field, message } of reason.details as { field: string; message: string }[])
      changes.push(`${field}: ${message}`)
  if (reason.code === 'unauthorized')
    changes.push(`Send Authorization: Bearer <key> with one of the keys: ${keys.map(describeKey).join('; ')}.`)
  const retryAfter = entry.response?.headers['retry-after']
  if (reason.code === 'rate_limited' && retryAfter !== undefined)
    changes.push(`Wait ${retryAfter} s (Retry-After) before sending again, and send fewer requests a window.`)
  if (reason.code === 'method_not_allowed' && entry.response?.headers.allow)
    changes.push(`Use one of the methods the path takes: ${entry.response.headers.allow}.`)
  if (entry.status >= 500 && entry.fault === undefined && !forced)
    changes.push(
      'A simulated failure (the error rate of the settings or the scenario): a client should retry it, with backoff.',
    )
  return changes
}

/** Which of the sandbox's keys has the scope a 403 named: of the same organization first, as the records differ. */
function scopeHint(entry: JournalEntry, details: RefusalDetails, keys: readonly KeyInfo[]): string {
  const scope = details.required_scope!
  const used = keys.find(({ key }) => key === entry.key)
  const holders = keys.filter(({ scopes }) => scopes.includes(scope as KeyInfo['scopes'][number]))
  const sameOrganization = holders.filter(({ organization_id }) => organization_id === used?.organization_id)
  const has = `the key has ${details.key_scopes?.join(', ') || 'none'}`
  if (holders.length === 0) return `Missing scope: ${scope} (${has}); no key of the sandbox has it.`
  return `Missing scope: ${scope} (${has}). Keys that have it: ${(sameOrganization.length > 0 ? sameOrganization : holders).map(describeKey).join('; ')}.`
}

function describeKey({ key, organization_name, scopes }: KeyInfo): string {
  return `${key} (${organization_name}: ${scopes.join(', ')})`
}
