import { expect, it } from 'vitest'
import { newRequestId } from './requestId.js'

it('gives req_ and 24 url-safe characters, never the same twice, across many refills of its random pool', () => {
  const ids = Array.from({ length: 10_000 }, () => newRequestId())
  for (const id of ids) expect(id).toMatch(/^req_[A-Za-z0-9]{24}$/)
  expect(new Set(ids).size).toBe(ids.length)
})
