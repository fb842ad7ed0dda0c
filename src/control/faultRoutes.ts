import { z } from 'zod'
import { defineEndpoint, type Endpoint } from '../http/Endpoint.js'
import { shownCredential } from '../sandbox/credentials.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import { ApiError } from '../schemas/ApiError.js'
import { FaultRule, FaultRuleRequest, MAX_FAULT_RULES, NoPath, NoQuery, RecordEnvelope } from '../schemas/index.js'

const FAULTS_PATH = '/_sandbox/faults'

export const FaultPath = z.object({
  fault_id: z.string().regex(/^flt_\d{1,12}$/, { error: 'fault_id must be a rule id such as flt_1.' }),
})

/**
 * A rule as the control plane shows it: its key as the journal shows one (a built-in key whole, a key of the user's
 * own organizations by its last 4), as a rule's key is listed to whoever reads the control plane.
 */
function shownRule(sandbox: Sandbox, rule: FaultRule): FaultRule {
  return rule.key === undefined ? rule : { ...rule, key: shownCredential(rule.key, sandbox.options.adminToken) }
}

/** A test's fault rules, under `/_sandbox/faults`: each session's control plane has its own. */
export const faultRoutes: readonly Endpoint[] = [
  defineEndpoint({
    method: 'POST',
    path: FAULTS_PATH,
    requires: 'admin token',
    summary: 'Add a fault rule',
    description: `Makes API requests fail the way a test needs, from outside the client: those at \`path\` (exact, or a prefix ending in \`*\`, as the journal's filter), of \`method\` and \`key\` when given, after the first \`after\` (default 0), \`times\` of them (default 1; null: until removed), each at \`probability\` (default 1, drawn from the seed: a run repeats after a reset). It answers \`status\` (an error of the contract's table, in the envelope; 429 with \`Retry-After\` and the rate-limit headers), waits \`delay_ms\` then answers as before, or closes the connection without an answer (\`"error": "network"\`). A rule is checked once the path and method are known, before the key: it can fail an unauthenticated request. At most ${MAX_FAULT_RULES} rules; a reset removes them all. The journal names the rule a request met (\`fault\`).`,
    pathParams: NoPath,
    query: NoQuery,
    body: FaultRuleRequest,
    checkBody: (sandbox, fields) => sandbox.faults.problemsOf(fields),
    status: 201,
    errors: [409],
    response: RecordEnvelope(FaultRule),
    answer: async ({ sandbox, body }) => {
      const { remove: _, ...rule } = await sandbox.faults.add(body)
      return {
        status: 201,
        body: { data: shownRule(sandbox, rule) },
        headers: { Location: `${FAULTS_PATH}/${rule.id}` },
      }
    },
  }),
  defineEndpoint({
    method: 'GET',
    path: FAULTS_PATH,
    requires: 'admin token',
    summary: 'The fault rules',
    description:
      'The rules, oldest first, each with `hits` (the requests it failed or slowed) and `remaining` (how many more it will; null: until removed). A spent rule stays listed until it is removed.',
    pathParams: NoPath,
    query: NoQuery,
    response: RecordEnvelope(z.array(FaultRule)),
    answer: async ({ sandbox }) => ({
      body: { data: (await sandbox.faults.list()).map((rule) => shownRule(sandbox, rule)) },
    }),
  }),
  defineEndpoint({
    method: 'DELETE',
    path: FAULTS_PATH,
    requires: 'admin token',
    summary: 'Remove every fault rule',
    description:
      'Removes every rule; the answer counts them. Rule ids go on from where they were (a reset starts them over).',
    pathParams: NoPath,
    query: NoQuery,
    response: RecordEnvelope(z.object({ removed: z.int() })),
    answer: async ({ sandbox }) => {
      // Counted as they go: a rule another server of a fleet adds meanwhile is counted, or stays.
      return { body: { data: { removed: await sandbox.faults.clear() } } }
    },
  }),
  defineEndpoint({
    method: 'DELETE',
    path: `${FAULTS_PATH}/:fault_id`,
    requires: 'admin token',
    summary: 'Remove a fault rule',
    description: 'Removes one rule; the answer is the rule as it stood.',
    pathParams: FaultPath,
    query: NoQuery,
    response: RecordEnvelope(FaultRule),
    answer: async ({ sandbox, params }) => {
      // The rule as the removal found it: a list read before could show another of the same id (a fleet's reset).
      const rule = await sandbox.faults.removed(params.fault_id)
      if (!rule)
        throw new ApiError('not_found', `No fault rule is ${params.fault_id}. GET ${FAULTS_PATH} lists them.`, {
          param: 'fault_id',
        })
      return { body: { data: shownRule(sandbox, rule) } }
    },
  }),
]
