import { describe, expect, it } from 'vitest'
import { arrayJson, bodyBytes, joinedBytes, jsonOf, RawJson } from './RawJson.js'

const stringifyBody = (body: Record<string, unknown>) => new TextDecoder().decode(joinedBytes(bodyBytes(body)))

describe('bodyBytes', () => {
  it('writes what JSON.stringify writes, with each RawJson as its text, mixed with plain items', () => {
    const records = [
      { id: 'a', n: 1, none: null },
      { id: 'b', text: 'quote " and \u2028' },
      { id: 'c', list: [1, undefined] },
    ]
    const body = {
      data: [records[0], new RawJson(JSON.stringify(records[1])), new RawJson(JSON.stringify(records[2]))],
      has_more: false,
      skipped: undefined,
      next_cursor: null,
      meta: { request_id: 'req_x' },
    }
    const plain = {
      data: records,
      has_more: false,
      skipped: undefined,
      next_cursor: null,
      meta: { request_id: 'req_x' },
    }
    expect(stringifyBody(body)).toBe(JSON.stringify(plain))
    expect(stringifyBody({ data: [undefined, () => 1, 'x'] })).toBe(JSON.stringify({ data: [undefined, () => 1, 'x'] }))
    expect(stringifyBody({ data: [] })).toBe('{"data":[]}')
    expect(stringifyBody({ data: [new RawJson('{"a":"é"}')], one: new RawJson('{}') })).toBe(
      '{"data":[{"a":"é"}],"one":{}}',
    )
  })
})

describe('bodyBytes with meta', () => {
  const withMeta = (body: Record<string, unknown>, meta: unknown) =>
    new TextDecoder().decode(joinedBytes(bodyBytes(body, meta)))

  it('writes what JSON.stringify writes of { ...body, meta }: meta last, or where the body has its own', () => {
    const meta = { request_id: 'req_x', timestamp: '2026-11-20T12:00:00.000Z' }
    const cases: Record<string, unknown>[] = [
      { data: new RawJson('[1]'), has_more: false },
      { data: [], meta: { old: true }, has_more: true },
      { meta: undefined, data: null },
      { skipped: undefined },
      {},
    ]
    for (const body of cases) {
      const plain = body.data instanceof RawJson ? { ...body, data: [1] } : body
      expect(withMeta(body, meta)).toBe(JSON.stringify({ ...plain, meta }))
    }
    expect(withMeta({ a: 1 }, undefined)).toBe('{"a":1}')
  })
})

describe('bodyBytes chunks', () => {
  it('sends a RawJson value as a chunk of its own, its very bytes, and copies what lies between into one', () => {
    const page = new RawJson('[{"id":"a"},{"id":"b"}]')
    const chunks = bodyBytes({ data: page, has_more: false, meta: { request_id: 'req_x' } })
    expect(chunks.map((chunk) => new TextDecoder().decode(chunk))).toEqual([
      '{"data":',
      '[{"id":"a"},{"id":"b"}]',
      ',"has_more":false,"meta":{"request_id":"req_x"}}',
    ])
    expect(chunks[1]).toBe(page.bytes)
    expect(bodyBytes({ a: [new RawJson('1'), 2], b: 3 })).toHaveLength(1)
  })
})

describe('arrayJson', () => {
  it('writes an array as JSON.stringify does, each RawJson item as its bytes, sent as one RawJson', () => {
    const items = [new RawJson('{"a":"é"}'), { b: 1 }, undefined, 'x']
    const json = arrayJson(items)
    expect(new TextDecoder().decode(json.bytes)).toBe(JSON.stringify([{ a: 'é' }, { b: 1 }, undefined, 'x']))
    expect(new TextDecoder().decode(arrayJson([]).bytes)).toBe('[]')
    expect(stringifyBody({ data: json, has_more: false })).toBe(
      '{"data":[{"a":"é"},{"b":1},null,"x"],"has_more":false}',
    )
  })
})

describe('jsonOf', () => {
  it("makes a record's text once and keeps it while the record lives", () => {
    const record = { id: 'a' }
    let made = 0
    const project = () => {
      made++
      return { id: record.id }
    }
    expect(new TextDecoder().decode(jsonOf(record, project).bytes)).toBe('{"id":"a"}')
    expect(jsonOf(record, project)).toBe(jsonOf(record, project))
    expect(made).toBe(1)
    expect(jsonOf({ id: 'a' }, project)).not.toBe(jsonOf(record, project))
  })
})
