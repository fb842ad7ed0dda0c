import { beforeAll, describe, expect, it } from 'vitest'
import { answer } from '../handlers/answer.js'
import { Sandbox } from '../sandbox/Sandbox.js'
import { RawJson } from './RawJson.js'
import { decodeCursor, encodeCursor } from './cursor.js'
import { nextCursorOf, type RenderedPage, renderedPage } from './renderedPages.js'

const NOW = '2026-11-20T12:00:00.000Z'
const KEY = 'Bearer sk_sandbox_all'

interface ListBody {
  data: Array<{ id: string; started_at: string; duration_seconds: number; ended_at: string | null }>
  meta: { timestamp: string }
}

async function list(sandbox: Sandbox, path: string): Promise<{ text: string; json: ListBody }> {
  const response = await answer(
    sandbox,
    new Request(`https://api.example.com${path}`, { headers: { Authorization: KEY } }),
  )
  if (!response) throw new Error(`No answer to ${path}.`)
  expect(response.status).toBe(200)
  const text = await response.text()
  return { text, json: JSON.parse(text) as ListBody }
}

/** The answer without its `meta`, which is the request's own. */
const withoutMeta = (text: string) => text.slice(0, text.lastIndexOf(',"meta":'))

describe('renderedPage', () => {
  const page = (from: number, until: number): RenderedPage => ({
    data: new RawJson('[]'),
    hasMore: false,
    last: undefined,
    from,
    until,
  })

  it('gives the kept page while its text holds, and renders anew outside its window', () => {
    const key = `test ${Math.random()}`
    let renders = 0
    const render = () => {
      renders++
      return page(1_000, 2_000)
    }
    const first = renderedPage(key, 1_500, render)
    expect(renderedPage(key, 1_000, render)).toBe(first)
    expect(renderedPage(key, 1_999, render)).toBe(first)
    expect(renders).toBe(1)
    expect(renderedPage(key, 2_000, render)).not.toBe(first)
    expect(renderedPage(key, 999, render)).not.toBe(first)
    expect(renders).toBe(3)
  })
})

describe('nextCursorOf', () => {
  const LAST = { t: Date.parse(NOW), id: '3f2b8c1e-9d4a-4e7b-8c2f-1a2b3c4d5e6f' }
  const BINDING = { endpoint: 'calls', key: 'sk_sandbox_all', filters: '[]' }
  const page = (hasMore: boolean): RenderedPage => ({
    data: new RawJson('[]'),
    hasMore,
    last: LAST,
    from: 0,
    until: 1,
  })

  it('is the cursor encodeCursor makes, for each key, filters and secret the page is asked with', () => {
    const kept = page(true)
    const asked = [
      [BINDING, 'secret 1'],
      [BINDING, 'secret 1'],
      [{ ...BINDING, key: 'sk_sandbox_read' }, 'secret 1'],
      [{ ...BINDING, filters: '[["status","completed"]]' }, 'secret 1'],
      [BINDING, 'secret 2'],
      [BINDING, 'secret 1'],
    ] as const
    for (const [binding, secret] of asked) {
      const cursor = nextCursorOf(kept, binding, secret)
      expect(cursor).toBe(encodeCursor(LAST, binding, secret))
      expect(decodeCursor(cursor!, binding, secret)).toEqual(LAST)
    }
  })

  it('is null on the last page', () => {
    expect(nextCursorOf(page(false), BINDING, 'secret 1')).toBeNull()
  })
})

describe('a list page kept as rendered', () => {
  let sandbox: Sandbox
  beforeAll(async () => {
    sandbox = new Sandbox({ seed: 1, now: NOW })
    await sandbox.ready
  })

  it('is sent again for an unchanged world, and made anew once a record is written', async () => {
    const first = await list(sandbox, '/v1/contacts?limit=5')
    const again = await list(sandbox, '/v1/contacts?limit=5')
    expect(withoutMeta(again.text)).toBe(withoutMeta(first.text))
    const created = await answer(
      sandbox,
      new Request('https://api.example.com/v1/contacts', {
        method: 'POST',
        headers: { Authorization: KEY, 'Content-Type': 'application/json' },
        body: JSON.stringify({ phone: '+14155550142', name: 'Ada Cached' }),
      }),
    )
    expect(created?.status).toBe(201)
    const after = await list(sandbox, '/v1/contacts?limit=5')
    expect(after.json.data[0]).toMatchObject({ phone: '+14155550142', name: 'Ada Cached' })
  })

  it("shows a live call's duration as of each request, though no record changed", async () => {
    const path = '/v1/calls?status=in-progress&limit=100'
    const before = await list(sandbox, path)
    expect(before.json.data.length).toBeGreaterThan(0)
    const revision = sandbox.db.revision
    for (const step of [400, 700, 1_000]) {
      sandbox.clock.advance(step)
      const now = await list(sandbox, path)
      // Nothing ended meanwhile: what moved is the clock alone.
      expect(sandbox.db.revision).toBe(revision)
      const at = Date.parse(now.json.meta.timestamp)
      expect(now.json.data.map((call) => call.duration_seconds)).toEqual(
        now.json.data.map((call) => Math.max(0, Math.floor((at - Date.parse(call.started_at)) / 1_000))),
      )
    }
  })
})
