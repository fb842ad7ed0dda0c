import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { LIST_FILTERS, routes } from '../src/index.js'
import { inProcess, walk, type Transport } from './support/transports.js'

/*
 * Every filter of every list endpoint, with every value it takes: a filter
 * the API accepts must select exactly the records whose field has that
 * value. The cases come from LIST_FILTERS, so a filter added there is
 * walked here too, and a parameter added to a list's query schema by any
 * other way fails the first test.
 */

const PAGING = ['limit', 'cursor', 'since']
const KINDS = Object.keys(LIST_FILTERS) as Array<keyof typeof LIST_FILTERS>

let api: Transport
beforeAll(async () => {
  api = await inProcess()
})
afterAll(() => api.close())

describe('list filters', () => {
  it.each(KINDS)('GET /v1/%s takes no query parameter but paging and its declared filters', (kind) => {
    const route = routes.find(({ method, path }) => method === 'GET' && path === `/v1/${kind}`)!
    expect(Object.keys(route.query.shape)).toEqual([...PAGING, ...Object.keys(LIST_FILTERS[kind])])
  })

  const cases = KINDS.flatMap((kind) =>
    Object.entries(LIST_FILTERS[kind]).map(([parameter, filter]) => [kind, parameter, filter] as const),
  )

  it.each(cases)(
    'GET /v1/%s?%s= selects exactly the records with that value, for every value',
    async (kind, parameter, { field, value }) => {
      const all = await walk(api, `/v1/${kind}`)
      const present = [...new Set(all.map((record) => record[field] as string))]
      // Every value an enum takes (each shows in the default world); for a free value (a phone), those the records have
      // and one nobody has.
      const values = value instanceof z.ZodEnum ? (value.options as string[]) : [...present.slice(0, 8), '+19995550100']
      let selected = 0
      for (const wanted of values) {
        const filtered = await walk(api, `/v1/${kind}?${parameter}=${encodeURIComponent(wanted)}`)
        expect(filtered, `${parameter}=${wanted}`).toEqual(all.filter((record) => record[field] === wanted))
        if (value instanceof z.ZodEnum)
          expect(filtered.length, `some ${kind} have ${field} ${wanted}`).toBeGreaterThan(0)
        expect(filtered.length, `${parameter}=${wanted} leaves some out`).toBeLessThan(all.length)
        selected += filtered.length
      }
      // Together the values cover every record (free values: those of the sampled ones).
      if (value instanceof z.ZodEnum) expect(selected).toBe(all.length)
    },
  )
})
