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
  /** @param json Its text, or the UTF-8 bytes of it (kept as they are, not copied). */
  constructor(json: string | Uint8Array) {
    this.bytes = typeof json === 'string' ? encoder.encode(json) : json
  }
}

const COMMA = encoder.encode(',')

/**
 * Chunks of bytes made one, in a buffer not zeroed first where Node's `Buffer` is at hand (every byte is then
 * written): zeroing a page's 73 KB was a tenth of what making it cost. Never from Node's shared pool, so that the
 * bytes own their whole `ArrayBuffer`.
 */
export function joinedBytes(chunks: readonly Uint8Array[]): Uint8Array {
  // One chunk is already a buffer of its own (the encoder's), sent as it is.
  if (chunks.length === 1) return chunks[0]!
  let length = 0
  for (const chunk of chunks) length += chunk.length
  const bytes: Uint8Array<ArrayBuffer> =
    typeof Buffer === 'undefined' ? new Uint8Array(length) : Buffer.allocUnsafeSlow(length)
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.length
  }
  return bytes
}

/** The chunks of an array's JSON after its `[`, up to its `]` excluded: each `RawJson` item as its bytes. */
function itemChunks(items: readonly unknown[], chunks: Uint8Array[]): void {
  for (let index = 0; index < items.length; index++) {
    const item: unknown = items[index]
    if (index > 0) chunks.push(COMMA)
    // As JSON.stringify writes an array: an item it cannot write (undefined) is null.
    chunks.push(item instanceof RawJson ? item.bytes : encoder.encode(JSON.stringify(item) ?? 'null'))
  }
}

/**
 * An array's JSON as one `RawJson`, each `RawJson` item as its bytes: a page's records, made once and sent as they
 * are while the page stays the same.
 *
 * @example
 * new TextDecoder().decode(arrayJson([new RawJson('{"a":1}'), 2]).bytes) // '[{"a":1},2]'
 */
export function arrayJson(items: readonly unknown[]): RawJson {
  const chunks = [encoder.encode('[')]
  itemChunks(items, chunks)
  chunks.push(encoder.encode(']'))
  return new RawJson(joinedBytes(chunks))
}

/**
 * The UTF-8 bytes of a body's JSON, as `JSON.stringify` would write it,
 * in chunks to be sent one after the other: each `RawJson` value (a kept
 * page's records) a chunk of its own, as it is, and what lies between them
 * copied into one, with the bytes of each `RawJson` item of an array.
 *
 * @note A page's 73 KB not copied behind its `meta` (which names the
 * request, so is new every time): the copy, and the buffer it made for each
 * answer, were about a twentieth of the command's time under load.
 *
 * With `meta`, the bytes of `{ ...body, meta }`, without that object made
 * and copied for every answer.
 *
 * @example
 * bodyBytes({ data: new RawJson('[{"a":1}]'), has_more: false }).length // 3: '{"data":', the page, ',"has_more":false}'
 */
export function bodyBytes(body: Record<string, unknown>, meta?: unknown): Uint8Array[] {
  const sent: Uint8Array[] = []
  let chunks: Uint8Array[] = []
  let pending = '{'
  const flush = () => {
    chunks.push(encoder.encode(pending))
    pending = ''
  }
  let first = true
  let metaWritten = meta === undefined
  const member = (name: string, value: unknown) => {
    pending += `${first ? '' : ','}${JSON.stringify(name)}:`
    first = false
    if (value instanceof RawJson) {
      flush()
      sent.push(joinedBytes(chunks), value.bytes)
      chunks = []
    } else if (Array.isArray(value) && value.some((item) => item instanceof RawJson)) {
      pending += '['
      flush()
      itemChunks(value, chunks)
      pending += ']'
    } else {
      pending += JSON.stringify(value)
    }
  }
  for (const name of Object.keys(body)) {
    // Where a spread would put it: in the place of the body's own `meta`, if it has one.
    const isMeta = name === 'meta' && !metaWritten
    if (isMeta) metaWritten = true
    const value = isMeta ? meta : body[name]
    if (value !== undefined) member(name, value)
  }
  if (!metaWritten) member('meta', meta)
  pending += '}'
  flush()
  sent.push(joinedBytes(chunks))
  return sent
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
