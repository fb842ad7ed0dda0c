import { ApiError } from '../schemas/ApiError.js'
import type { FieldError } from '../schemas/envelope.js'
import {
  type FaultRule,
  type FaultRuleInput,
  FaultRuleRequest,
  type FaultRuleSpec,
  MAX_FAULT_RULES,
  MAX_FAULT_RULES_IN_SERVER,
} from '../schemas/faultRule.js'
import { parseBody } from '../schemas/parseBody.js'
import { hash32 } from '../seed/random.js'
import { matchesPath } from './Journal.js'

/** What a fault rule looks at of an API request: its method, its path below the root, the key it presents. */
export interface FaultedRequest {
  method: string
  path: string
  /** The key presented, when it is one of the sandbox's; a rule with a `key` meets no other request. */
  key: string | undefined
}

/**
 * Where a world's fault rules are kept: in this process (`MemoryRuleBook`), or in a store every server of a fleet
 * reads and counts in (Redis), so that `times: 3` fails three requests across all of them.
 */
export interface FaultRuleBook {
  /** Keeps a rule under the next id; undefined when it holds `MAX_FAULT_RULES` already. */
  add(rule: FaultRuleSpec): Promise<FaultRule | undefined>
  /** The rules, oldest first, with how far each has gone. */
  list(): Promise<FaultRule[]>
  /**
   * Forgets one rule: the rule as it stood when it was forgotten (another server may have replaced the one of that id
   * a moment before, after a reset), or undefined when it has none by that id.
   */
  remove(id: string): Promise<FaultRule | undefined>
  /**
   * Forgets every rule; with `restartIds` (a reset) the next one is `flt_1` again, so a run repeats. Resolves with how
   * many it forgot, counted as it forgets them (a rule another server adds meanwhile is counted, or stays).
   */
  clear(restartIds?: boolean): Promise<number>
  /**
   * The rule that meets this request, counted: the oldest rule whose `path`, `method` and `key` match, past its
   * `after` matches, not spent, and drawn at its `probability` (from `seed`, the rule and how many matches came
   * before, so the same run meets the same faults). Every matching rule up to it counts the request as a match.
   */
  take(request: FaultedRequest, seed: number): Promise<FaultRule | undefined>
}

/** A rule as `sandbox.faults.add` returns it: what it is, and how to take it away. */
export type AddedFaultRule = FaultRule & {
  /** Takes the rule away; false when it was gone already (removed, cleared, or a reset). */
  remove(): Promise<boolean>
}

/**
 * A world's fault rules: what a test sets to make API requests fail the way it needs (`POST /_sandbox/faults` over
 * HTTP, `sandbox.faults` in process), kept in memory or, with a store a fleet shares, in the store.
 *
 * @example
 * const rule = await sandbox.faults.add({ path: '/v1/calls', status: 429, times: 2 })
 * await rule.remove()
 */
export class FaultRules {
  #book: FaultRuleBook

  /** @param world The world whose requests the rules meet: its seed draws their chances, its keys are theirs. */
  constructor(
    book: FaultRuleBook,
    private readonly world: { readonly options: { seed: number }; apiKey(key: string): unknown },
  ) {
    this.#book = book
  }

  /** From now on the rules are the store's (a fleet's), not this process's. */
  keepIn(book: FaultRuleBook): void {
    this.#book = book
  }

  /**
   * Adds a rule (its fields as the HTTP body's: `path`, `method`, `key`, `after`, `times`, `probability`, and one of
   * `status`, `delay_ms`, `error: 'network'`). A bad rule is an `ApiError` 422 naming its fields; past 100 rules, a
   * 409 `fault_rule_limit_reached`.
   */
  async add(rule: FaultRuleInput): Promise<AddedFaultRule> {
    const spec = parseBody(FaultRuleRequest, rule, this.problemsOf(rule as Record<string, unknown>))
    const added = await this.#book.add(spec)
    if (!added) {
      throw new ApiError(
        'fault_rule_limit_reached',
        `This world holds ${MAX_FAULT_RULES} fault rules, the most it keeps. Remove one (DELETE /_sandbox/faults/{id}) or all (DELETE /_sandbox/faults).`,
        { details: { limit: MAX_FAULT_RULES } },
      )
    }
    return { ...added, remove: () => this.remove(added.id) }
  }

  /** The rules, oldest first, each with its `hits` and `remaining`. */
  list(): Promise<FaultRule[]> {
    return this.#book.list()
  }

  async remove(id: string): Promise<boolean> {
    return (await this.#book.remove(id)) !== undefined
  }

  /** Forgets one rule: the rule as it stood when it was forgotten, or undefined when there is none by that id. */
  removed(id: string): Promise<FaultRule | undefined> {
    return this.#book.remove(id)
  }

  /** Forgets every rule; resolves with how many. */
  clear(): Promise<number> {
    return this.#book.clear()
  }

  /** Forgets every rule and starts the ids over: a reset. */
  async reset(): Promise<void> {
    await this.#book.clear(true)
  }

  /** The rule that meets an API request, if any, counted as met (see `FaultRuleBook.take`). */
  take(request: FaultedRequest): Promise<FaultRule | undefined> {
    return this.#book.take(request, this.world.options.seed)
  }

  /**
   * What the schema cannot check: a `key` must be one of the sandbox's, and is never echoed (a rule kept with
   * another secret would show it in every list).
   */
  problemsOf(rule: Record<string, unknown>): FieldError[] {
    const { key } = rule ?? {}
    if (typeof key !== 'string' || key.length > 200 || this.world.apiKey(key) !== undefined) return []
    return [{ field: 'key', code: 'invalid_choice', message: "key must be an API key of the sandbox's organizations" }]
  }
}

/**
 * The chance draw of a rule's `seen`-th match: a number in [0, 1) from the seed, the rule and the match.
 *
 * @note FNV-1a alone hardly moves the high bits that decide a draw when only the last characters change (the count
 * of matches): its draws came in long runs (0.5 failed the first 19 matches in a row, 0.9 the first 259). murmur3's
 * final step spreads every bit of the hash over all 32. A fleet's Redis draws with the same arithmetic in Lua
 * (`MIXED_HASH` in `redisDraw.ts`, tested against this one): change both or neither.
 */
export function draw(seed: number, id: string, seen: number): number {
  return mixedHash(`${seed} ${id} ${seen}`) / 2 ** 32
}

/** FNV-1a, then murmur3's `fmix32`: a 32-bit hash whose every bit depends on every character. */
export function mixedHash(text: string): number {
  let hash = hash32(text)
  hash ^= hash >>> 16
  hash = Math.imul(hash, 0x85ebca6b)
  hash ^= hash >>> 13
  hash = Math.imul(hash, 0xc2b2ae35)
  hash ^= hash >>> 16
  return hash >>> 0
}

/** Whether a rule looks at this request at all. */
export function meets(rule: FaultRuleSpec, { method, path, key }: FaultedRequest): boolean {
  return (
    (rule.method === undefined || rule.method === method) &&
    (rule.key === undefined || rule.key === key) &&
    matchesPath(path, rule.path)
  )
}

interface KeptRule {
  rule: FaultRuleSpec & { id: string }
  seen: number
  hits: number
}

const NONE = Promise.resolve(undefined)

/**
 * How many rules the books of one server's sessions hold together, as their journals share one byte budget: each
 * session's 100 rules stay while its world is put away, and would otherwise add up with the sessions.
 */
export class RuleBudget {
  held = 0
  constructor(readonly limit = MAX_FAULT_RULES_IN_SERVER) {}
}

/**
 * The error of a rule past what the named sessions of a server (or of a fleet, in its store) hold together.
 *
 * @example
 * throw rulesTogetherError("This fleet's", 10_000)
 */
export function rulesTogetherError(whose: string, limit = MAX_FAULT_RULES_IN_SERVER): ApiError {
  return new ApiError(
    'fault_rule_limit_reached',
    `${whose} sessions hold ${limit} fault rules together, the most it keeps. Remove rules (DELETE /_sandbox/faults) or end sessions no test uses (DELETE /_sandbox/sessions/{name}).`,
    { details: { limit } },
  )
}

/** A world's rules in this process's memory: every backend but a store a fleet shares. */
export class MemoryRuleBook implements FaultRuleBook {
  #rules: KeptRule[] = []
  #made = 0
  readonly #budget: RuleBudget

  /** @param budget What it shares with the other sessions' books; a book of its own by default. */
  constructor(budget = new RuleBudget()) {
    this.#budget = budget
  }

  get size(): number {
    return this.#rules.length
  }

  async add(rule: FaultRuleSpec): Promise<FaultRule | undefined> {
    if (this.#rules.length >= MAX_FAULT_RULES) return undefined
    const { limit } = this.#budget
    if (this.#budget.held >= limit) throw rulesTogetherError("This server's", limit)
    const kept = { rule: { id: `flt_${++this.#made}`, ...rule }, seen: 0, hits: 0 }
    this.#rules.push(kept)
    this.#budget.held++
    return shown(kept)
  }

  async list(): Promise<FaultRule[]> {
    return this.#rules.map(shown)
  }

  async remove(id: string): Promise<FaultRule | undefined> {
    const found = this.#rules.find(({ rule }) => rule.id === id)
    if (!found) return undefined
    this.#rules = this.#rules.filter((kept) => kept !== found)
    this.#budget.held--
    return shown(found)
  }

  async clear(restartIds = false): Promise<number> {
    const removed = this.#rules.length
    this.#budget.held -= removed
    this.#rules = []
    if (restartIds) this.#made = 0
    return removed
  }

  take(request: FaultedRequest, seed: number): Promise<FaultRule | undefined> {
    // The common case, a request and no rules, costs no more than this check.
    if (this.#rules.length === 0) return NONE
    for (const kept of this.#rules) {
      const { rule } = kept
      if (!meets(rule, request)) continue
      kept.seen++
      if (kept.seen <= rule.after) continue
      if (rule.times !== null && kept.hits >= rule.times) continue
      if (rule.probability < 1 && draw(seed, rule.id, kept.seen) >= rule.probability) continue
      kept.hits++
      return Promise.resolve(shown(kept))
    }
    return NONE
  }
}

/** A kept rule as it is shown: its fields, `hits`, and `remaining`. */
export function shown({ rule, hits }: { rule: FaultRuleSpec & { id: string }; hits: number }): FaultRule {
  return { ...rule, hits, remaining: rule.times === null ? null : Math.max(0, rule.times - hits) }
}
