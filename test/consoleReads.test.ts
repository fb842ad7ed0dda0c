import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { CONSOLE_HEADER } from '../src/http/consoleRead.js'
import { startServer } from '../src/server/startServer.js'
import { dataOf, postJson } from './support/control.js'
import { call, sandboxServer } from './support/proxies.js'
import { NOW, type Transport, transports } from './support/transports.js'

/*
 * The console's own reads (`X-Sandbox-Console: 1` on a GET) leave no trace: not in the journal, not in the usage
 * report, not in the metrics, and they meet no fault. A write with the header is journaled and counted as any other.
 */

const CONSOLE = { [CONSOLE_HEADER]: '1' }
const named = transports.map((make) => [make.name === 'inProcess' ? 'in process' : 'over HTTP', make] as const)

describe.each(named)("the console's own requests, %s", (_name, make) => {
  let api: Transport
  beforeAll(async () => {
    api = await make()
  })
  afterAll(() => api.close())
  beforeEach(() => api.sandbox.reset({ scenario: 'default' }))

  const journal = async () => dataOf(await api.request('/_sandbox/requests', { key: null }))
  const usage = async () => dataOf(await api.request('/_sandbox/usage', { key: null }))

  it('reads the API without a journal entry or a line in the usage report', async () => {
    const read = await api.request('/v1/calls?limit=2', { headers: CONSOLE })
    expect(read.status).toBe(200)
    expect(read.body.data).toHaveLength(2)
    const one = await api.request(`/v1/calls/${read.body.data[0].id}`, { headers: CONSOLE })
    expect(one.status).toBe(200)
    expect(await journal()).toEqual([])
    expect(await usage()).toEqual([])
    // The same read without the header is journaled and counted: the test above could fail.
    const plain = await api.request('/v1/calls?limit=2')
    expect((await journal()).map((entry: { request_id: string }) => entry.request_id)).toEqual([
      plain.headers.get('x-request-id'),
    ])
    expect((await usage()).map((line: { requests: number }) => line.requests)).toEqual([1])
  })

  it('journals and counts a write that carries the header, as any other', async () => {
    const write = await postJson(
      api,
      '/v1/contacts',
      { phone: '+14155550166' },
      {
        key: 'sk_sandbox_all',
        headers: CONSOLE,
      },
    )
    expect(write.status).toBe(201)
    const [entry] = await journal()
    expect(entry).toMatchObject({ method: 'POST', path: '/v1/contacts', request_id: write.headers.get('x-request-id') })
    expect((await usage()).map((line: { requests: number }) => line.requests)).toEqual([1])
  })

  it('takes a header of another value as no console read', async () => {
    await api.request('/v1/me', { headers: { [CONSOLE_HEADER]: 'yes' } })
    expect(await journal()).toHaveLength(1)
  })

  it('spends no fault rule: the next request of a test still meets it', async () => {
    await postJson(api, '/_sandbox/faults', { path: '/v1/calls', status: 503 })
    expect((await api.request('/v1/calls', { headers: CONSOLE })).status).toBe(200)
    expect((await api.request('/v1/calls')).status).toBe(503)
  })
})

describe("the console's own requests, in the metrics", () => {
  it('counts none of them', async () => {
    const server = await startServer({ port: 0, quiet: true, now: NOW })
    try {
      const auth = { Authorization: 'Bearer sk_sandbox_all' }
      const counted = async () => {
        const text = await (await fetch(`${server.url}/_sandbox/metrics`)).text()
        const line = text
          .split('\n')
          .find((one) => one.startsWith('call_sandbox_requests_total{') && one.includes('endpoint="GET /v1/me"'))
        return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0
      }
      await fetch(`${server.url}/v1/me`, { headers: { ...auth, ...CONSOLE } })
      expect(await counted()).toBe(0)
      await fetch(`${server.url}/v1/me`, { headers: auth })
      expect(await counted()).toBe(1)
    } finally {
      await server.close()
    }
  })
})

describe("the console's header, from a page of another origin", () => {
  it('is allowed by a preflight, as the other headers a page sends', async () => {
    const server = await sandboxServer()
    const preflight = await fetch(`${server.url}/v1/calls`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example.com',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'authorization,x-sandbox-console',
      },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-sandbox-console')
  })
})

describe("the console's own requests, in proxy mode", () => {
  it('are not journaled: the upstream answers them, the drift report still holds it to the contract', async () => {
    const upstream = await sandboxServer()
    const proxy = await sandboxServer({ proxy: upstream.url })
    expect((await call(`${proxy.url}/v1/me`, { headers: CONSOLE })).status).toBe(200)
    expect((await call(`${proxy.url}/_sandbox/requests`)).body.data).toEqual([])
    const plain = await call(`${proxy.url}/v1/me`)
    const journal = (await call(`${proxy.url}/_sandbox/requests`)).body.data
    expect(journal.map((entry: { request_id: string }) => entry.request_id)).toEqual([
      plain.headers.get('x-sandbox-request-id'),
    ])
    expect((await call(`${proxy.url}/_sandbox/drift`)).body.data.answers).toBe(2)
  })
})
