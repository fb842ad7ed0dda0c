import type { EndpointUsage, KeyUsage, Scope } from '../schemas/index.js'

/** What a request is counted under in the usage report: the endpoint that was matched. */
/** What the report needs of an API endpoint. */
export interface Endpoint {
  method: string
  /** The endpoint's path, such as `/v1/calls/:call_id`. */
  path: string
  requires: { scope: Scope | null }
}

export interface KeyInfo {
  /** The key as the report shows it (`shownCredential`). */
  key: string
  organization_id: string
  scopes: readonly Scope[]
}

/**
 * Counts since the last reset, per key and endpoint: unlike the journal it
 * forgets nothing, and it costs a counter per endpoint, not an entry per request.
 *
 * @example
 * usage.report(routes) // one entry per key that made a request
 */
export class Usage {
  readonly #byLine = new Map<
    string,
    { info: KeyInfo; requests: number; endpoints: Map<string, EndpointUsage & { parameterSet: Set<string> }> }
  >()

  /**
   * Counts one request of a valid key: under its endpoint when it reached one, with the endpoint's parameters it sent.
   *
   * @example
   * usage.record(key, route, ['limit'], 200)
   */
  record(apiKey: KeyInfo, endpoint: Endpoint | undefined, parameters: Iterable<string>, status: number): void {
    const line = lineOf(apiKey)
    let usage = this.#byLine.get(line)
    if (!usage) {
      usage = { info: apiKey, requests: 0, endpoints: new Map() }
      this.#byLine.set(line, usage)
    }
    usage.requests++
    if (!endpoint) return
    const id = `${endpoint.method} ${endpoint.path}`
    let counts = usage.endpoints.get(id)
    if (!counts) {
      counts = {
        method: endpoint.method,
        path: endpoint.path,
        requests: 0,
        statuses: {},
        parameters: [],
        parameterSet: new Set(),
      }
      usage.endpoints.set(id, counts)
    }
    counts.requests++
    counts.statuses[status] = (counts.statuses[status] ?? 0) + 1
    for (const name of parameters) counts.parameterSet.add(name)
  }

  /** One entry per key that made a request, in the order of `endpoints` for what it never called. */
  report(endpoints: readonly Endpoint[]): KeyUsage[] {
    const scopeOf = new Map(endpoints.map(({ method, path, requires }) => [`${method} ${path}`, requires.scope]))
    return [...this.#byLine.values()].map(({ info, requests, endpoints: used }) => {
      const needed = new Set<Scope>()
      for (const id of used.keys()) {
        const scope = scopeOf.get(id)
        if (scope) needed.add(scope)
      }
      const inOrder = (scopes: Iterable<Scope>) => [...scopes].sort()
      return {
        key: info.key,
        organization_id: info.organization_id,
        requests,
        endpoints: [...used.values()].map(({ parameterSet, ...counts }) => ({
          ...counts,
          statuses: { ...counts.statuses },
          parameters: [...parameterSet].sort(),
        })),
        untouched_endpoints: endpoints.map(({ method, path }) => `${method} ${path}`).filter((id) => !used.has(id)),
        scopes: {
          granted: inOrder(info.scopes),
          needed: inOrder(needed),
          unused: inOrder(info.scopes.filter((scope) => !needed.has(scope))),
          missing: inOrder([...needed].filter((scope) => !info.scopes.includes(scope))),
        },
      }
    })
  }

  /** Whether it counted nothing yet. */
  get empty(): boolean {
    return this.#byLine.size === 0
  }

  /** Forgets every count (a reset does). */
  clear(): void {
    this.#byLine.clear()
  }

  /**
   * A report kept as counters in a store several servers share (see `countersOf`), to report from.
   *
   * @example
   * Usage.fromCounters(await store.usage()).report(routes)
   */
  static fromCounters(counters: Record<string, string>): Usage {
    const usage = new Usage()
    // Sorted: every server that reads the same counters reports them in the same order.
    const fields = Object.keys(counters).sort()
    for (const field of fields) {
      const [what, line] = field.split('|') as [string, string]
      if (what === 'key')
        usage.#byLine.set(line, { info: JSON.parse(counters[field]!), requests: 0, endpoints: new Map() })
    }
    for (const field of fields) {
      const [what, line, method, path, detail] = field.split('|') as [string, string, string, string, string]
      const keyUsage = usage.#byLine.get(line)
      if (!keyUsage) continue
      const count = Number(counters[field])
      if (what === 'requests') keyUsage.requests = count
      if (what !== 'status' && what !== 'parameter') continue
      const id = `${method} ${path}`
      let counts = keyUsage.endpoints.get(id)
      if (!counts) {
        counts = { method, path, requests: 0, statuses: {}, parameters: [], parameterSet: new Set() }
        keyUsage.endpoints.set(id, counts)
      }
      if (what === 'status') {
        counts.statuses[detail] = count
        counts.requests += count
      } else counts.parameterSet.add(detail)
    }
    return usage
  }
}

/**
 * One request's counts as a store several servers share keeps them: fields
 * of one hash, each counted up by one, and the key's own, set; a key by its
 * line (`lineOf`), so the store never holds one the report does not show.
 *
 * @example
 * countersOf(key, route, ['limit'], 200) // { add: ['requests|sk_… 32c2… calls:read', 'status|sk_… 32c2… calls:read|GET|/v1/calls|200', …], set: {…} }
 */
export function countersOf(
  apiKey: KeyInfo,
  endpoint: Endpoint | undefined,
  parameters: Iterable<string>,
  status: number,
): { add: string[]; set: Record<string, string> } {
  const line = lineOf(apiKey)
  const add = [`requests|${line}`]
  const set: Record<string, string> = { [`key|${line}`]: JSON.stringify(apiKey) }
  if (endpoint) {
    const at = `${line}|${endpoint.method}|${endpoint.path}`
    add.push(`status|${at}|${status}`)
    for (const name of parameters) set[`parameter|${at}|${name}`] = '1'
  }
  return { add, set }
}

/**
 * A key's line in the report: the key as shown, its organization and its
 * scopes. Two keys that show alike (`…abcd`, or `…` when short) are two
 * lines when their organization or scopes differ, and one when nothing
 * the report shows tells them apart.
 */
function lineOf(info: KeyInfo): string {
  let line = lines.get(info)
  if (line === undefined) {
    line = `${info.key} ${info.organization_id} ${info.scopes.join(',')}`
    lines.set(info, line)
  }
  return line
}

/** Each key's line, made once for the key's info (`usageOf` gives a key the same info each time). */
const lines = new WeakMap<KeyInfo, string>()
