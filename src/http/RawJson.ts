const encoder = new TextEncoder()

/**
 * JSON text put into an answer as it is: a resource serialized once, kept
 * as the UTF-8 bytes an answer is sent in, and reused while its stored
 * record stays the same.
 *
 * @example
 * respond(sandbox, requestId, 200, { data: [new RawJson('{"id":"…"}')] })
 */
export class RawJson {
  readonly bytes: Uint8Array
  constructor(text: string) {
    this.bytes = encoder.encode(text)
  }
}

const COMMA = encoder.encode(',')

/**
 * The UTF-8 bytes of a body's JSON, as `JSON.stringify` would write it,
 * with the bytes of each `RawJson` (a value, or an item of an array) as they
 * are: a page of stored records is copied once, never encoded again.
 *
 * @example
 * new TextDecoder().decode(bodyBytes({ data: [new RawJson('{"a":1}')], has_more: false })) //
 * '{"data":[{"a":1}],"has_more":false}'
 */
export function bodyBytes(body: Record<string, unknown>): Uint8Array<ArrayBuffer> {
  const chunks: Uint8Array[] = []
  let pending = '{'
  const flush = () => {
    chunks.push(encoder.encode(pending))
    pending = ''
  }
  let first = true
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined) continue
    pending += `${first ? '' : ','}${JSON.stringify(name)}:`
    first = false
    if (value instanceof RawJson) {
      flush()
      chunks.push(value.bytes)
    } else if (Array.isArray(value) && value.some((item) => item instanceof RawJson)) {
      pending += '['
      flush()
      for (let index = 0; index < value.length; index++) {
        const item: unknown = value[index]
        if (index > 0) chunks.push(COMMA)
        // As JSON.stringify writes an array: an item it cannot write (undefined) is null.
        chunks.push(item instanceof RawJson ? item.bytes : encoder.encode(JSON.stringify(item) ?? 'null'))
      }
      pending += ']'
    } else {
      pending += JSON.stringify(value)
    }
  }
  pending += '}'
  flush()
  let length = 0
  for (const chunk of chunks) length += chunk.length
  const bytes = new Uint8Array(length)
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.length
  }
  return bytes
}

/**
 * Each stored record's JSON text: a stored record never changes (a change stores a new one), so its text holds while it
 * lives.
 */
const texts = new WeakMap<object, RawJson>()

/**
 * The JSON text of a stored record's resource, made once per record.
 *
 * @example
 * jsonOf(contact, () => toContact(contact))
 */
export function jsonOf(record: object, resource: () => unknown): RawJson {
  let json = texts.get(record)
  if (!json) {
    json = new RawJson(JSON.stringify(resource()))
    texts.set(record, json)
  }
  return json
}
