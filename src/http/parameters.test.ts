import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { ApiError } from '../schemas/ApiError.js'
import { parseQuery, parseUrlQuery } from './parameters.js'

const route = () => ({
  method: 'GET',
  path: '/v1/things',
  query: z.object({ limit: z.string().regex(/^\d+$/).transform(Number).optional(), name: z.string().optional() }),
})
const url = (search: string) => new URL(`http://sandbox.test/v1/things${search}`)

describe('parseQuery', () => {
  it('parses each value present by its schema', () => {
    expect(parseQuery(route(), new URLSearchParams('limit=2&name=a'))).toEqual({ limit: 2, name: 'a' })
  })

  it.each([
    ['an unknown name', 'size=2', 'unknown_parameter'],
    ['a repeated name', 'limit=1&limit=2', 'invalid_parameter'],
    ['a bad value', 'limit=two', 'invalid_parameter'],
  ])('refuses %s with a 400', (_, search, code) => {
    expect(() => parseQuery(route(), new URLSearchParams(search))).toThrow(
      expect.objectContaining({ status: 400, code }) as ApiError,
    )
  })
})

describe('parseUrlQuery', () => {
  it('parses as parseQuery does, and gives the same frozen values for the same query string', () => {
    const things = route()
    const first = parseUrlQuery(things, url('?limit=2&name=a'))
    expect(first).toEqual({ limit: 2, name: 'a' })
    expect(Object.isFrozen(first)).toBe(true)
    expect(parseUrlQuery(things, url('?limit=2&name=a'))).toBe(first)
    expect(parseUrlQuery(things, url('?limit=3'))).toEqual({ limit: 3 })
    expect(parseUrlQuery(things, url(''))).toEqual({})
  })

  it('keeps the values of one query schema apart from another’s for the same query string', () => {
    const other = { ...route(), query: z.object({ limit: z.string().optional() }) }
    expect(parseUrlQuery(route(), url('?limit=2'))).toEqual({ limit: 2 })
    expect(parseUrlQuery(other, url('?limit=2'))).toEqual({ limit: '2' })
  })

  it('refuses a bad query each time it is sent, as nothing of it is kept', () => {
    const things = route()
    for (let i = 0; i < 2; i++)
      expect(() => parseUrlQuery(things, url('?limit=two'))).toThrow(
        expect.objectContaining({ code: 'invalid_parameter', init: { param: 'limit' } }) as ApiError,
      )
  })

  it('parses a query string longer than any kept each time', () => {
    const things = route()
    const long = url(`?name=${'a'.repeat(5_000)}`)
    const first = parseUrlQuery(things, long)
    expect(first).toEqual({ name: 'a'.repeat(5_000) })
    expect(parseUrlQuery(things, long)).not.toBe(first)
  })

  it('keeps a bounded number of query strings, the least recently used going first', () => {
    const things = route()
    const first = parseUrlQuery(things, url('?limit=0'))
    for (let i = 1; i <= 256; i++) parseUrlQuery(things, url(`?limit=${i}`))
    const again = parseUrlQuery(things, url('?limit=0'))
    expect(again).not.toBe(first)
    expect(again).toEqual(first)
  })
})
