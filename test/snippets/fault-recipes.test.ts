// The fault recipes of docs/guides/testing.md (each block between two markers, word for word), run against the
// built package: a client's retries, backoff, dropped connections, a failing page and a timeout, each arranged
// from outside the client with a fault rule.
// #region setup
import { createSandbox } from 'call-sandbox'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'

const API = 'https://api.example.com'
const KEY = { Authorization: 'Bearer sk_sandbox_all' }
const sandbox = createSandbox({ now: '2026-11-20T12:00:00Z', baseUrl: API })
const server = setupServer(...sandbox.handlers)

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
beforeEach(() => sandbox.reset()) // a reset removes every fault rule too
afterAll(() => {
  server.close()
  sandbox.stop()
})
// #endregion setup

// #region retry-after
/** The client under test: a 429 is retried once its Retry-After (seconds) has passed. */
async function getRespectingRetryAfter(url: string, attempts = 3): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(url, { headers: KEY })
    if (response.status !== 429 || attempt === attempts) return response
    await response.arrayBuffer() // an answer not read to its end keeps its connection busy
    const seconds = Number(response.headers.get('Retry-After') ?? 1)
    await new Promise((resolve) => setTimeout(resolve, seconds * 1_000))
  }
}

it('retries a 429 once Retry-After has passed', async () => {
  await sandbox.faults.add({ path: '/v1/calls', status: 429, times: 1 })
  const response = await getRespectingRetryAfter(`${API}/v1/calls`)
  expect(response.status).toBe(200)
  expect((await response.json()).data.length).toBeGreaterThan(0)
  const { entries } = await sandbox.journalEntries()
  expect(entries.map(({ status }) => status)).toEqual([200, 429]) // newest first
})
// #endregion retry-after

// #region backoff
/** The client under test: a 5xx is retried after 50, 100, 200 ms…, up to `attempts` tries. */
async function getWithBackoff(url: string, attempts = 4): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(url, { headers: KEY })
    if (response.status < 500 || attempt === attempts) return response
    await response.arrayBuffer()
    await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** (attempt - 1)))
  }
}

it('backs off on 503 and gets through', async () => {
  await sandbox.faults.add({ path: '/v1/leads', status: 503, times: 2 })
  const response = await getWithBackoff(`${API}/v1/leads`)
  expect([response.status, (await response.json()).error]).toEqual([200, undefined])
  const [rule] = await sandbox.faults.list()
  expect(rule).toMatchObject({ hits: 2, remaining: 0 })
})

it('gives up on a 500 that does not end', async () => {
  await sandbox.faults.add({ path: '/v1/leads', status: 500, times: null }) // null: until removed
  const response = await getWithBackoff(`${API}/v1/leads`, 3)
  expect([response.status, (await response.json()).error.code]).toEqual([500, 'internal_error'])
})
// #endregion backoff

// #region dropped
/** The client under test: a request that gets no answer at all (fetch rejects) is sent once more. */
async function getSurvivingDrops(url: string): Promise<Response> {
  try {
    return await fetch(url, { headers: KEY })
  } catch {
    return fetch(url, { headers: KEY })
  }
}

it('sends again a request whose connection dropped', async () => {
  await sandbox.faults.add({ path: '/v1/me', error: 'network' }) // over HTTP: the socket closes, nothing written
  const response = await getSurvivingDrops(`${API}/v1/me`)
  expect((await response.json()).data.organization_id).toBeDefined()
  const { entries } = await sandbox.journalEntries()
  expect(entries.map(({ status, fault }) => [status, fault])).toEqual([
    [200, undefined],
    [0, 'flt_1'], // the journal names the rule a request met; 0: no answer
  ])
})
// #endregion dropped

// #region third-page
/** The client under test: every call, walking the cursors, each page with the backoff above. */
async function allCalls(): Promise<Array<{ id: string }>> {
  const calls: Array<{ id: string }> = []
  let cursor: string | null = null
  do {
    const response = await getWithBackoff(`${API}/v1/calls?limit=100${cursor ? `&cursor=${cursor}` : ''}`)
    if (!response.ok) throw new Error(`GET /v1/calls answered ${response.status}`)
    const page = await response.json()
    calls.push(...page.data)
    cursor = page.next_cursor
  } while (cursor)
  return calls
}

it('finishes a cursor walk whose third page fails once, every call once', async () => {
  await sandbox.faults.add({ path: '/v1/calls', after: 2, status: 503 }) // pages 1 and 2 go through
  const walked = await allCalls()
  expect(new Set(walked.map(({ id }) => id)).size).toBe(walked.length)
  expect(walked).toEqual(await allCalls()) // the same walk with the rule spent
})
// #endregion third-page

// #region timeout
it('gives up on a slow answer at its timeout, and takes the next one', async () => {
  await sandbox.faults.add({ path: '/v1/calls', delay_ms: 3_000 }) // then the answer as it would be
  const slow = fetch(`${API}/v1/calls`, { headers: KEY, signal: AbortSignal.timeout(200) })
  await expect(slow).rejects.toThrow(/abort|timeout/i)
  const next = await fetch(`${API}/v1/calls`, { headers: KEY, signal: AbortSignal.timeout(10_000) })
  expect((await next.json()).data.length).toBeGreaterThan(0)
})
// #endregion timeout
