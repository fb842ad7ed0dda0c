/**
 * JSON text put into an answer as it is: a resource serialized once and
 * reused while its stored record stays the same.
 *
 * @example
 * respond(sandbox, requestId, 200, { data: [new RawJson('{"id":"…"}')] })
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/**
 * The JSON text of a body, as `JSON.stringify` would write it, with the
 * text of each `RawJson` (a value, or an item of an array) as it is.
 *
 * @example
 * stringifyBody({ data: [new RawJson('{"a":1}')], has_more: false }) // '{"data":[{"a":1}],"has_more":false}'
 */
export function stringifyBody(body: Record<string, unknown>): string {
  const members: string[] = []
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined) continue
    members.push(`${JSON.stringify(name)}:${textOf(value)}`)
  }
  return `{${members.join(',')}}`
}

function textOf(value: unknown): string {
  if (value instanceof RawJson) return value.text
  // As JSON.stringify writes an array: an item it cannot write (undefined) is null.
  if (Array.isArray(value)) return `[${value.map((item) => textOf(item) ?? 'null').join(',')}]`
  return JSON.stringify(value)
}

/** Each stored record's JSON text: a stored record never changes (a change stores a new one), so its text holds while it lives. */
const texts = new WeakMap<object, RawJson>()

/**
 * The JSON text of a stored record's resource, made once per record.
 *
 * @example
 * jsonOf(contact, () => toContact(contact))
 */
export function jsonOf(record: object, resource: () => unknown): RawJson {
  let json = texts.get(record)
  if (!json) texts.set(record, (json = new RawJson(JSON.stringify(resource()))))
  return json
}
