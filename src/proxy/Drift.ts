import type { ContractRule, ContractViolation, DriftReport } from '../schemas/index.js'
import { PROMISES } from './checkUpstreamReply.js'

/** One proxied request, as the drift report counts it. */
export interface Exchange {
  /** `GET /v1/calls/:call_id`, or `GET (no such endpoint)`. */
  endpoint: string
  request_id: string
  upstream_request_id: string | null
  /** Method, path and query as sent, a credential in the query as `shownUrl` shows it. */
  request: string
  status: number
  /** Whether the upstream answered; a 502 or 504 of the proxy's own is no answer. */
  answered: boolean
  violations: readonly ContractViolation[]
}

interface RuleTally {
  violations: number
  answers: number
  examples: DriftReport['endpoints'][number]['rules'][number]['examples']
  /** The fields of the examples, array indexes left out: one example a field. */
  fields: Set<string>
}

interface EndpointTally {
  answers: number
  answersWithViolations: number
  unanswered: number
  rules: Map<ContractRule, RuleTally>
}

/** Examples kept per endpoint and rule. */
const EXAMPLES = 3

/**
 * The drift report of proxy mode (`GET /_sandbox/drift`): per endpoint and
 * rule, how many answers of the upstream broke what the contract promises,
 * with the first examples (a field each), to paste into a ticket for the
 * vendor. Its size is bounded by the endpoints and rules, not the traffic.
 *
 * @example
 * const drift = new Drift('https://api.example.com')
 * drift.add(exchange)
 * drift.report().endpoints[0]?.rules[0]?.examples[0]?.field // 'data[0].caller_phone'
 */
export class Drift {
  #since = Date.now()
  readonly #endpoints = new Map<string, EndpointTally>()

  constructor(readonly upstream: string) {}

  add({ endpoint, answered, violations, ...example }: Exchange): void {
    let tally = this.#endpoints.get(endpoint)
    if (!tally) {
      tally = { answers: 0, answersWithViolations: 0, unanswered: 0, rules: new Map() }
      this.#endpoints.set(endpoint, tally)
    }
    if (!answered) {
      tally.unanswered++
      return
    }
    tally.answers++
    if (violations.length > 0) tally.answersWithViolations++
    const broken = new Set<ContractRule>()
    for (const { rule, ...violation } of violations) {
      let ruleTally = tally.rules.get(rule)
      if (!ruleTally) {
        ruleTally = { violations: 0, answers: 0, examples: [], fields: new Set() }
        tally.rules.set(rule, ruleTally)
      }
      ruleTally.violations++
      if (!broken.has(rule)) ruleTally.answers++
      broken.add(rule)
      const field = violation.field.replace(/\[\d+\]/g, '[]')
      if (ruleTally.examples.length < EXAMPLES && !ruleTally.fields.has(field)) {
        ruleTally.fields.add(field)
        ruleTally.examples.push({ ...example, ...violation })
      }
    }
  }

  /** The report as it stands. */
  report(): DriftReport {
    const endpoints = [...this.#endpoints].sort(([a], [b]) => a.localeCompare(b))
    const sum = (count: (tally: EndpointTally) => number) =>
      endpoints.reduce((total, [, tally]) => total + count(tally), 0)
    return {
      upstream: this.upstream,
      since: new Date(this.#since).toISOString(),
      answers: sum((tally) => tally.answers),
      answers_with_violations: sum((tally) => tally.answersWithViolations),
      unanswered: sum((tally) => tally.unanswered),
      endpoints: endpoints.map(([endpoint, tally]) => ({
        endpoint,
        answers: tally.answers,
        answers_with_violations: tally.answersWithViolations,
        unanswered: tally.unanswered,
        rules: [...tally.rules]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([rule, { violations, answers, examples }]) => ({
            rule,
            promise: PROMISES[rule],
            violations,
            answers,
            examples,
          })),
      })),
    }
  }

  /** Starts counting afresh (a reset). */
  clear(): void {
    this.#endpoints.clear()
    this.#since = Date.now()
  }
}

/**
 * The drift report of a sandbox without a proxy: nothing to report.
 *
 * @example
 * noDrift().upstream // null
 */
export function noDrift(): DriftReport {
  return { upstream: null, since: null, answers: 0, answers_with_violations: 0, unanswered: 0, endpoints: [] }
}
