import type { z } from 'zod'
import { isObject } from '../http/isObject.js'

/*
 * How the document writes zod's JSON Schema: a format alone where zod adds its regexes, and a nullable value as a
 * type union. The sandbox still checks with the zod schemas; only what the document says changes.
 */

/** JSON Schema's name for each string format of zod whose regex the document leaves out. */
const FORMATS: Record<string, string> = { uuid: 'uuid', datetime: 'date-time', date: 'date' }

/**
 * An id, a timestamp or a date as its format alone (`type: string, format:
 * uuid`): zod writes the regex it checks with beside the format, or, for a
 * lower-case UUID, two patterns in an `allOf` and no format at all, which a
 * client generator types as `string & unknown`. The sandbox still checks
 * with the regexes; only what the document says changes.
 */
export function formatAlone({
  zodSchema,
  jsonSchema,
}: {
  zodSchema: z.core.$ZodTypes
  jsonSchema: z.core.JSONSchema.BaseSchema
}): void {
  const { def } = zodSchema._zod
  if (def.type !== 'string') return
  const formats = [
    'format' in def ? def.format : undefined,
    ...(def.checks ?? []).map(({ _zod }) => ('format' in _zod.def ? _zod.def.format : undefined)),
  ]
  const format = formats.map((name) => FORMATS[String(name)]).find((name) => name !== undefined)
  if (format === undefined) return
  delete jsonSchema.pattern
  delete jsonSchema.allOf
  jsonSchema.format = format
}

/**
 * zod's nullable (`anyOf: [{ type: 'string', … }, { type: 'null' }]`) as an
 * OpenAPI 3.1 type union (`type: ['string', 'null']`, with null among the
 * values of an enum). A `JSON.parse` reviver: it meets every schema, the
 * innermost first. A nullable `$ref` stays an `anyOf`, having no type to join.
 */
export function nullableAsType(_key: string, value: unknown): unknown {
  if (!isObject(value) || !Array.isArray(value.anyOf) || value.anyOf.length !== 2) return value
  const nullAt = value.anyOf.findIndex(
    (branch) => isObject(branch) && Object.keys(branch).length === 1 && branch.type === 'null',
  )
  const schema: unknown = value.anyOf[1 - nullAt]
  if (nullAt === -1 || !isObject(schema) || typeof schema.type !== 'string') return value
  const { anyOf: _, ...rest } = value
  return {
    ...rest,
    ...schema,
    type: [schema.type, 'null'],
    ...(Array.isArray(schema.enum) && { enum: [...schema.enum, null] }),
  }
}
