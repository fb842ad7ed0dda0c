import { z } from 'zod'
import type { ContractViolation } from '../schemas/index.js'

/**
 * A schema that also refuses fields it does not have, at every depth: the
 * contract gives each resource exactly its fields. The sandbox's schemas
 * strip unknown keys (its own answers never have any); an upstream's answer
 * is held to the field set too.
 *
 * @example
 * strictSchema(ListEnvelope(Call)).safeParse(page) // an unrecognized_keys issue for `phone_number`
 */
export function strictSchema(schema: z.ZodType): z.ZodType {
  let strict = stricts.get(schema)
  if (!strict) {
    strict = strictOf(schema)
    stricts.set(schema, strict)
  }
  return strict
}

const stricts = new WeakMap<z.ZodType, z.ZodType>()

function strictOf(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodObject) {
    return z.strictObject(
      Object.fromEntries(Object.entries(schema.shape).map(([name, field]) => [name, strictOf(field as z.ZodType)])),
    )
  }
  if (schema instanceof z.ZodArray) return z.array(strictOf(schema.element as z.ZodType))
  if (schema instanceof z.ZodNullable) return strictOf(schema.unwrap() as z.ZodType).nullable()
  if (schema instanceof z.ZodOptional) return strictOf(schema.unwrap() as z.ZodType).optional()
  if (schema instanceof z.ZodUnion)
    return z.union((schema.options as z.ZodType[]).map(strictOf) as [z.ZodType, z.ZodType])
  return schema
}

/**
 * The violations a value's zod issues stand for: a field the contract does
 * not have is `fields`, anything under `meta` is `meta`, a URL of a scheme
 * a browser would not merely follow `url`, the rest `schema`; each with
 * where it is, what the contract promises there, and what came.
 *
 * @example
 * violationsOf(strictSchema(route.response).safeParse(body).error!.issues, body)
 */
export function violationsOf(issues: readonly z.core.$ZodIssue[], value: unknown): ContractViolation[] {
  return issues.flatMap((issue): ContractViolation[] => {
    const at = valueAt(value, issue.path)
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        rule: 'fields',
        field: fieldPath([...issue.path, key]),
        expected: 'no such field (the contract does not have it)',
        got: shown((at as Record<string, unknown>)?.[key]),
      }))
    }
    return [
      {
        rule: issue.path[0] === 'meta' ? 'meta' : isOtherSchemeUrl(issue, at) ? 'url' : 'schema',
        field: fieldPath(issue.path) || '(body)',
        expected: expectedOf(issue, at),
        got: shown(at),
      },
    ]
  })
}

/**
 * Whether an issue is a URL field holding a URL of another scheme than http: and https: (`javascript:`, `data:`),
 * read as a browser reads it. A value that is no URL at all (`''`, a path) would be a link to the page showing it:
 * a `schema` violation only.
 */
function isOtherSchemeUrl(issue: z.core.$ZodIssue, value: unknown): boolean {
  if (issue.code !== 'invalid_format' || issue.format !== 'url' || typeof value !== 'string') return false
  const scheme = URL.parse(value)?.protocol.slice(0, -1)
  return scheme !== undefined && !z.regexes.httpProtocol.test(scheme)
}

/** What the contract promises where an issue is, in words. */
function expectedOf(issue: z.core.$ZodIssue, value: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      return value === undefined
        ? `${article(issue.expected)} (a field the contract always has)`
        : article(issue.expected)
    case 'invalid_value':
      return `one of ${issue.values.map((option) => JSON.stringify(option)).join(', ')}`
    case 'invalid_format':
      return issue.format === 'regex'
        ? `text matching ${issue.pattern ?? issue.message}`
        : `${article(issue.format)} (${issue.message})`
    default:
      return issue.message
  }
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`
}

/** `['data', 3, 'caller_phone']` → `data[3].caller_phone`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path
    .map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? String(part) : `.${String(part)}`))
    .join('')
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value
  for (const part of path)
    at = typeof at === 'object' && at !== null ? (at as Record<PropertyKey, unknown>)[part] : undefined
  return at
}

const SHOWN_LENGTH = 120

/**
 * A value as a violation shows it: JSON text, shortened; `(missing)` for
 * no value at all.
 *
 * @example
 * shown(undefined) // '(missing)'
 */
export function shown(value: unknown): string {
  if (value === undefined) return '(missing)'
  const text = JSON.stringify(value)
  return text.length > SHOWN_LENGTH ? `${text.slice(0, SHOWN_LENGTH)}…` : text
}
