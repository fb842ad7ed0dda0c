import { describe, expect, it } from 'vitest'
import { answer, createSandbox } from '../index.js'
import { fixtures } from './fixtures.js'
import { STORY_NOW } from './storySandbox.js'

const sandbox = createSandbox({ now: STORY_NOW })

async function get(path: string): Promise<any> {
  const response = await answer(
    sandbox,
    new Request(`https://api.call-sandbox.test${path}`, { headers: { Authorization: 'Bearer sk_sandbox_all' } }),
  )
  return response!.json()
}

/** Every record of a list, page after page, as an integrator's client walks it. */
async function walk(path: string): Promise<unknown[]> {
  const records: unknown[] = []
  let page = await get(`${path}?limit=100`)
  records.push(...page.data)
  while (page.has_more) {
    page = await get(`${path}?limit=100&cursor=${page.next_cursor}`)
    records.push(...page.data)
  }
  return records
}

describe('fixtures', () => {
  it.each(['calls', 'contacts', 'leads', 'appointments'] as const)(
    'of %s are every page of the list, as the API answers it',
    async (kind) => {
      const listed = await walk(`/v1/${kind}`)
      expect(fixtures[kind].length).toBeGreaterThan(10)
      expect(JSON.stringify(fixtures[kind])).toBe(JSON.stringify(listed))
    },
  )

  it('give each call with its messages, as GET /v1/calls/:call_id answers it', async () => {
    const live = fixtures.callsWithMessages.findIndex((call) => call.ended_at === null)
    for (const i of [0, 1, live, fixtures.calls.length - 1]) {
      const call = fixtures.callsWithMessages[i]!
      expect(call.messages.length).toBeGreaterThan(0)
      expect(JSON.stringify(call)).toBe(JSON.stringify((await get(`/v1/calls/${call.id}`)).data))
    }
  })

  it('give the organization of sk_sandbox_all, as GET /v1/me answers it', async () => {
    expect(fixtures.me).toEqual((await get('/v1/me')).data)
  })
})
