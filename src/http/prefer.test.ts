import { describe, expect, it } from 'vitest'
import { ApiError } from '../schemas/ApiError.js'
import { FORCEABLE_STATUSES, parsePrefer } from './prefer.js'
import { routes } from './routes.js'

const listCalls = routes.find((route) => route.method === 'GET' && route.path === '/v1/calls')!
const createContact = routes.find((route) => route.method === 'POST' && route.path === '/v1/contacts')!

describe('parsePrefer', () => {
  it.each([
    ['no header', null, { applied: [] }],
    ['an empty header', '', { applied: [] }],
    ['code', 'code=503', { code: 503, applied: ['code=503'] }],
    ['delay', 'delay=1500', { delay: 1500, applied: ['delay=1500'] }],
    ['both, in one header', 'code=429, delay=200', { code: 429, delay: 200, applied: ['code=429', 'delay=200'] }],
    ['a quoted value', 'code="404"', { code: 404, applied: ['code=404'] }],
    ['names in any case, spaces around', '  CODE = 500 ', { code: 500, applied: ['code=500'] }],
    ['parameters after a semicolon, ignored', 'code=500; reason=test', { code: 500, applied: ['code=500'] }],
    ['the first of a repeated preference', 'code=500, code=503', { code: 500, applied: ['code=500'] }],
    ["other preferences (RFC 7240's), ignored", 'return=minimal, respond-async, wait=10', { applied: [] }],
    ['the success status of the route', 'code=200', { code: 200, applied: ['code=200'] }],
    ['the shortest delay', 'delay=0', { delay: 0, applied: ['delay=0'] }],
    ['the longest delay', 'delay=60000', { delay: 60_000, applied: ['delay=60000'] }],
  ])('reads %s', (_what, header, preferences) => {
    expect(parsePrefer(header, listCalls)).toEqual(preferences)
  })

  it.each(FORCEABLE_STATUSES.map((status) => [status]))('takes code=%i, a status of the error table', (status) => {
    expect(parsePrefer(`code=${status}`, listCalls).code).toBe(status)
  })

  it("takes the route's own success status: 201 for POST /v1/contacts, not for GET /v1/calls", () => {
    expect(parsePrefer('code=201', createContact).code).toBe(201)
    expect(() => parsePrefer('code=201', listCalls)).toThrow(ApiError)
  })

  it.each([
    ['a status no error of the table has', 'code=418', 'Prefer: code= takes 200 or an error status'],
    ['a status given as text', 'code=ok', 'got "ok"'],
    ['a status that is no number', 'code=abc', 'got "abc"'],
    ['a status of two digits', 'code=50', 'got "50"'],
    ['an empty status', 'code=', 'got ""'],
    ['a delay past a minute', 'delay=60001', 'Prefer: delay= takes milliseconds from 0 to 60,000; got "60001"'],
    ['a negative delay', 'delay=-1', 'got "-1"'],
    ['a delay with a unit', 'delay=5s', 'got "5s"'],
    ['a delay of six digits', 'delay=000001', 'got "000001"'],
  ])('refuses %s (%s) with 400 invalid_parameter naming Prefer', (_what, header, message) => {
    expect(() => parsePrefer(header, listCalls)).toThrow(
      expect.objectContaining({
        status: 400,
        code: 'invalid_parameter',
        init: { param: 'Prefer' },
        message: expect.stringContaining(message),
      }),
    )
  })
})
