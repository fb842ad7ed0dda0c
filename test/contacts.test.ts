import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Contact, RecordEnvelope } from '../src/index.js'
import { transports, type Transport } from './support/transports.js'

const JSON_TYPE = { 'Content-Type': 'application/json' }

describe.each(transports)('POST /v1/contacts (%o)', (connect) => {
  let api: Transport
  let nextPhone = 16175550000
  const freshPhone = () => `+${nextPhone++}`
  const post = (body: string, headers: Record<string, string> = JSON_TYPE, key = 'sk_sandbox_all') =>
    api.request('/v1/contacts', { method: 'POST', headers, body, key })

  beforeAll(async () => {
    api = await connect()
  })
  afterAll(() => api.close())

  it('creates a contact: 201, Location, source api, no calls yet, the clock for both timestamps', async () => {
    const fields = {
      phone: freshPhone(),
      name: 'Dana Whitfield',
      email: 'dana@whitfield.example',
      company: 'Whitfield & Co',
      notes: 'Met at the expo.',
    }
    const { status, headers, body } = await post(JSON.stringify(fields))
    expect(status).toBe(201)
    const contact = RecordEnvelope(Contact.strict()).parse(body).data
    expect(contact).toMatchObject({
      ...fields,
      source: 'api',
      total_calls: 0,
      last_call_at: null,
      created_at: '2026-11-20T12:00:00.000Z',
      updated_at: '2026-11-20T12:00:00.000Z',
    })
    expect(headers.get('location')).toBe(`/v1/contacts/${contact.id}`)
    expect((await api.request(`/v1/contacts/${contact.id}`)).body.data).toEqual(contact)
    expect((await api.request(`/v1/contacts?phone=${encodeURIComponent(fields.phone)}`)).body.data).toEqual([contact])
    expect((await api.request('/v1/contacts?limit=1')).body.data[0].id).toBe(contact.id)
  })

  it('needs only the phone; absent or null optional fields are null', async () => {
    const onlyPhone = (await post(JSON.stringify({ phone: freshPhone() }))).body.data
    expect(onlyPhone).toMatchObject({ name: null, email: null, company: null, notes: null })
    const nulls = await post(
      JSON.stringify({ phone: freshPhone(), name: null, email: null, company: null, notes: null }),
    )
    expect(nulls.status).toBe(201)
  })

  it('accepts JSON with a charset and +json media types', async () => {
    expect(
      (await post(JSON.stringify({ phone: freshPhone() }), { 'Content-Type': 'application/json; charset=utf-8' }))
        .status,
    ).toBe(201)
    expect((await post(JSON.stringify({ phone: freshPhone() }), { 'Content-Type': 'Application/JSON' })).status).toBe(
      201,
    )
  })

  it('answers 409 contact_exists with the existing contact for a taken phone', async () => {
    const existing = (await api.request('/v1/contacts?limit=1')).body.data[0]
    const { status, body } = await post(JSON.stringify({ phone: existing.phone, name: 'Someone Else' }))
    expect(status).toBe(409)
    expect(body.error).toMatchObject({ code: 'contact_exists', details: { contact_id: existing.id } })
  })

  it("lets another organization have the same phone, and keeps each organization's contacts its own", async () => {
    const phone = freshPhone()
    const mine = (await post(JSON.stringify({ phone }))).body.data
    const theirs = await post(JSON.stringify({ phone }), JSON_TYPE, 'sk_sandbox_org2')
    expect(theirs.status).toBe(201)
    expect(theirs.body.data.id).not.toBe(mine.id)
    expect((await api.request(`/v1/contacts/${theirs.body.data.id}`)).status).toBe(404)
  })

  it('creates exactly one contact when the same phone is posted ten times at once', async () => {
    const body = JSON.stringify({ phone: freshPhone() })
    const statuses = (await Promise.all(Array.from({ length: 10 }, () => post(body)))).map((answer) => answer.status)
    expect(statuses.filter((status) => status === 201)).toHaveLength(1)
    expect(statuses.filter((status) => status === 409)).toHaveLength(9)
  })

  it.each([
    ['no Content-Type', {}],
    ['text/plain', { 'Content-Type': 'text/plain' }],
    ['a form', { 'Content-Type': 'application/x-www-form-urlencoded' }],
    ['multipart', { 'Content-Type': 'multipart/form-data; boundary=x' }],
  ])('answers 415 unsupported_media_type for %s', async (_name, headers) => {
    const { status, body } = await post(JSON.stringify({ phone: freshPhone() }), headers)
    expect(status).toBe(415)
    expect(body.error.code).toBe('unsupported_media_type')
  })

  it.each([
    ['an empty body', ''],
    ['text', 'phone=+14155550123'],
    ['truncated JSON', '{"phone": "+14155550123"'],
    ['an array', '[{"phone": "+14155550123"}]'],
    ['null', 'null'],
    ['a string', '"+14155550123"'],
    ['a number', '42'],
    ['two objects', '{"phone":"+14155550123"}{}'],
  ])('answers 400 invalid_json for %s', async (_name, text) => {
    const { status, body } = await post(text)
    expect(status).toBe(400)
    expect(body.error.code).toBe('invalid_json')
  })

  it('answers 400 invalid_json for a body that is not UTF-8', async () => {
    const response = await api.request('/v1/contacts', {
      method: 'POST',
      headers: JSON_TYPE,
      body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]) as unknown as string,
    })
    expect(response.status).toBe(400)
    expect(response.body.error.code).toBe('invalid_json')
  })

  it('answers 413 payload_too_large for a JSON body over 64 KiB, and for a far larger one', async () => {
    const big = await post(JSON.stringify({ phone: freshPhone(), notes: 'x'.repeat(70_000) }))
    expect(big.status).toBe(413)
    expect(big.body.error.code).toBe('payload_too_large')
    const huge = await post(JSON.stringify({ phone: freshPhone(), notes: 'x'.repeat(3_000_000) }))
    expect(huge.status).toBe(413)
  })

  it('checks the body in the contract order: media type, then JSON, then size, then fields, then conflicts', async () => {
    const existing = (await api.request('/v1/contacts?limit=1')).body.data[0]
    expect((await post('x'.repeat(70_000), { 'Content-Type': 'text/plain' })).status).toBe(415)
    expect((await post(`{"notes": "${'x'.repeat(70_000)}"`)).status).toBe(400)
    expect((await post(JSON.stringify({ phone: 'nope', notes: 'x'.repeat(70_000) }))).status).toBe(413)
    expect((await post(JSON.stringify({ phone: existing.phone, email: 'not-an-email' }))).status).toBe(422)
  })

  it('answers 422 validation_failed listing every bad field at once', async () => {
    const { status, body } = await post(
      JSON.stringify({
        phone: '415-555-0123',
        name: 5,
        email: 'not-an-email',
        company: 'c'.repeat(1_001),
        notes: 'n'.repeat(10_001),
        nickname: 'Dee',
      }),
    )
    expect(status).toBe(422)
    expect(body.error.code).toBe('validation_failed')
    const byField = Object.fromEntries(
      body.error.details.map((detail: { field: string; code: string }) => [detail.field, detail.code]),
    )
    expect(byField).toEqual({
      phone: 'invalid_format',
      name: 'invalid_type',
      email: 'invalid_format',
      company: 'too_long',
      notes: 'too_long',
      nickname: 'unknown_field',
    })
    for (const detail of body.error.details) expect(detail.message).toContain(detail.field)
  })

  it.each([
    ['a missing phone', { name: 'No Phone' }, 'phone', 'required'],
    ['a phone as a number', { phone: 14155550123 }, 'phone', 'invalid_type'],
    ['a phone without +', { phone: '14155550123' }, 'phone', 'invalid_format'],
    ['a phone of 16 digits', { phone: '+1234567890123456' }, 'phone', 'invalid_format'],
    ['a name of 1,001 characters', { phone: '+14155550000', name: 'n'.repeat(1_001) }, 'name', 'too_long'],
    ['an email with no domain', { phone: '+14155550000', email: 'dana@' }, 'email', 'invalid_format'],
    [
      'an id, which the API assigns',
      { phone: '+14155550000', id: '3f2b8c1e-9d4a-4e7b-8c2f-1a2b3c4d5e6f' },
      'id',
      'unknown_field',
    ],
    ['a source, which the API assigns', { phone: '+14155550000', source: 'inbound_call' }, 'source', 'unknown_field'],
  ])('answers 422 for %s', async (_name, fields, field, code) => {
    const { status, body } = await post(JSON.stringify(fields))
    expect(status).toBe(422)
    expect(body.error.details).toContainEqual(expect.objectContaining({ field, code }))
  })

  it('takes notes of exactly 10,000 characters and other fields of exactly 1,000', async () => {
    const { status } = await post(
      JSON.stringify({ phone: freshPhone(), name: 'n'.repeat(1_000), notes: 'n'.repeat(10_000) }),
    )
    expect(status).toBe(201)
  })
})
