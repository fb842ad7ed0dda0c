import { describe, expect, it } from 'vitest'
import { CallWithMessages, ListEnvelope, Contact, RecordEnvelope } from '../schemas/index.js'
import { shown, strictSchema, violationsOf } from './strictSchema.js'

const META = { request_id: 'req_abcdefghijklmnopqrstuvwx', timestamp: '2026-11-20T12:00:00.000Z' }
const CONTACT = {
  id: '3f2b8c1e-9d4a-4e7b-8c2f-1a2b3c4d5e6f',
  phone: '+14155550123',
  name: 'Dana Whitfield',
  email: null,
  company: null,
  source: 'api',
  total_calls: 0,
  last_call_at: null,
  notes: null,
  created_at: '2026-11-20T12:00:00.000Z',
  updated_at: '2026-11-20T12:00:00.000Z',
}

function violations(schema: Parameters<typeof strictSchema>[0], value: unknown) {
  return violationsOf(strictSchema(schema).safeParse(value).error?.issues ?? [], value)
}

describe('strictSchema and violationsOf: an answer held to the schema and the field set', () => {
  it('finds nothing in an answer as the contract gives it', () => {
    expect(
      violations(ListEnvelope(Contact), { data: [CONTACT], has_more: false, next_cursor: null, meta: META }),
    ).toEqual([])
  })

  it('names a field the contract does not have, at any depth, and one it has that is missing', () => {
    const { phone, ...renamed } = CONTACT
    expect(
      violations(ListEnvelope(Contact), {
        data: [CONTACT, { ...renamed, phone_number: phone }],
        has_more: false,
        next_cursor: null,
        meta: { ...META, trace: 'x' },
      }),
    ).toEqual([
      {
        rule: 'schema',
        field: 'data[1].phone',
        expected: 'a string (a field the contract always has)',
        got: '(missing)',
      },
      {
        rule: 'fields',
        field: 'data[1].phone_number',
        expected: 'no such field (the contract does not have it)',
        got: '"+14155550123"',
      },
      { rule: 'fields', field: 'meta.trace', expected: 'no such field (the contract does not have it)', got: '"x"' },
    ])
    const message = { role: 'caller', content: 'Hi', timestamp: META.timestamp, sentiment: 'calm' }
    expect(
      violations(RecordEnvelope(CallWithMessages), { data: { messages: [message] }, meta: META }).filter(
        ({ rule }) => rule === 'fields',
      ),
    ).toEqual([{ rule: 'fields', field: 'data.messages[0].sentiment', expected: expect.any(String), got: '"calm"' }])
  })

  it('says what the contract wants where a value is wrong: a type, one of the values, a format, a pattern; meta apart', () => {
    const found = violations(RecordEnvelope(Contact), {
      data: { ...CONTACT, total_calls: '3', source: 'web', created_at: 'yesterday', phone: '555' },
      meta: { request_id: 'abc', timestamp: META.timestamp },
    })
    expect(found).toEqual([
      { rule: 'schema', field: 'data.phone', expected: expect.stringMatching(/^text matching/), got: '"555"' },
      { rule: 'schema', field: 'data.source', expected: 'one of "inbound_call", "api"', got: '"web"' },
      { rule: 'schema', field: 'data.total_calls', expected: 'a number', got: '"3"' },
      { rule: 'schema', field: 'data.created_at', expected: expect.stringMatching(/^a datetime/), got: '"yesterday"' },
      { rule: 'meta', field: 'meta.request_id', expected: expect.stringMatching(/^text matching/), got: '"abc"' },
    ])
  })

  it('shows a value as short JSON, and nothing as (missing)', () => {
    expect(shown(undefined)).toBe('(missing)')
    expect(shown(null)).toBe('null')
    expect(shown('x'.repeat(500))).toBe(`"${'x'.repeat(119)}…`)
  })
})
