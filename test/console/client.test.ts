// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest'
import { createClient, rootOf } from '../../console/sandbox.js'

/** A fetch that answers from `answer` and keeps what it was asked. */
function fakeFetch(answer: (url: string, init: RequestInit) => Response) {
  const asked: Array<{ url: string; init: RequestInit }> = []
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    asked.push({ url: String(input), init })
    return answer(String(input), init)
  }
  return { asked, fetch: fetch as typeof globalThis.fetch }
}

function memoryStorage() {
  const kept = new Map<string, string>()
  return {
    getItem: (name: string) => kept.get(name) ?? null,
    setItem: (name: string, value: string) => kept.set(name, value),
  }
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status })

describe("the console's client", () => {
  it('finds the root in the address: bare, or a session (its name decoded)', () => {
    expect(rootOf('/_sandbox/console/')).toBe('')
    expect(rootOf('/sessions/ci%201/_sandbox/console/index.html')).toBe('/sessions/ci%201')
    expect(createClient('').session).toBe('default')
    expect(createClient('/sessions/ci%201').session).toBe('ci 1')
  })

  it('asks the control plane under its root, with JSON when it sends a body', async () => {
    const { asked, fetch } = fakeFetch(() => json(200, { data: { ok: true } }))
    const client = createClient('/sessions/a', { fetch, storage: memoryStorage(), askToken: async () => 'never' })
    expect(await client.control('/_sandbox/reset', { method: 'POST', body: '{}' })).toEqual({
      status: 200,
      body: { data: { ok: true } },
    })
    expect(asked[0]!.url).toBe('/sessions/a/_sandbox/reset')
    expect(asked[0]!.init.method).toBe('POST')
    // The console marks its own requests, so the sandbox neither journals nor counts its reads.
    expect(asked[0]!.init.headers).toEqual({ 'X-Sandbox-Console': '1', 'Content-Type': 'application/json' })
  })

  it('asks for the admin token once for refusals at the same time, keeps it, and sends it again', async () => {
    const storage = memoryStorage()
    let questions = 0
    const { asked, fetch } = fakeFetch((_, init) =>
      (init.headers as Record<string, string>).Authorization === 'Bearer admin-1'
        ? json(200, { data: [] })
        : json(401, { error: { code: 'unauthorized' } }),
    )
    const client = createClient('', {
      fetch,
      storage,
      askToken: async () => {
        questions++
        return 'admin-1'
      },
    })
    const answers = await Promise.all([client.control('/_sandbox/requests'), client.control('/_sandbox/usage')])
    expect(answers.map(({ status }) => status)).toEqual([200, 200])
    expect(questions).toBe(1)
    expect(storage.getItem('call-sandbox-admin-token')).toBe('admin-1')
    await client.control('/_sandbox/clock')
    expect(asked.at(-1)!.init.headers).toEqual({ 'X-Sandbox-Console': '1', Authorization: 'Bearer admin-1' })
    expect(questions).toBe(1)
  })

  it('gives up after three refusals of the token', async () => {
    const { fetch } = fakeFetch(() => json(401, { error: { code: 'unauthorized' } }))
    const client = createClient('', { fetch, storage: memoryStorage(), askToken: async () => 'wrong' })
    await expect(client.control('/_sandbox/health')).rejects.toThrow('The admin token was refused.')
  })

  it('sends the API its key, and a replay as it is, answered as text', async () => {
    const { asked, fetch } = fakeFetch((url) =>
      url.endsWith('/v1/me') ? json(200, { data: {} }) : new Response('not json', { status: 502 }),
    )
    const client = createClient('', { fetch, storage: memoryStorage(), askToken: async () => '' })
    await client.api('/v1/me', 'sk_sandbox_all')
    expect(asked[0]!.init.headers).toEqual({ 'X-Sandbox-Console': '1', Authorization: 'Bearer sk_sandbox_all' })
    const init = { method: 'POST', headers: { 'X-Note': 'a' }, body: 'x' }
    expect(await client.send('/v1/other', init)).toEqual({ status: 502, text: 'not json' })
    expect(asked[1]).toEqual({ url: '/v1/other', init })
  })
})
