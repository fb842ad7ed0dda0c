import { describe, expect, it, vi } from 'vitest'
import { answer, createSandbox } from '../src/index.js'
import { defaultOrganizations } from '../src/seed/fixtures.js'
import { call, fakeUpstream } from './support/proxies.js'
import { expectNoLeak, loggedServer, logLines } from './support/secrets.js'

/*
 * The value rule: a secret the sandbox knows (the admin token, a key of a
 * user's own organizations) or that the request carried is masked wherever
 * it occurs, not only in a field named like a credential. One request a row
 * of the review that found them whole.
 */

const ALL_SCOPES = defaultOrganizations[0]!.keys[0]!.scopes

describe('a secret sent where no name says so (the value rule)', () => {
  const ADMIN = 'adm1n-T0ken-very-secret-9876'
  const ORG_KEY = 'sk_live_ORGKEY1234567wxyz'
  const organizations = defaultOrganizations.map((organization, i) =>
    i === 0 ? { ...organization, keys: [...organization.keys, { key: ORG_KEY, scopes: ALL_SCOPES }] } : organization,
  )
  const JSON_BODY = { 'Content-Type': 'application/json' }
  /** The reviewer's requests: each sends the admin token or a key of the user's own where no name says it is one. */
  const SENT: Array<{
    path: string
    method?: string
    headers?: Record<string, string>
    body?: string
    status: number
  }> = [
    { path: `/v1/calls?${ADMIN}`, status: 400 },
    { path: `/v1/calls?${ORG_KEY}`, status: 400 },
    { path: `/v1/calls/${ORG_KEY}`, status: 400 },
    {
      path: '/v1/contacts',
      method: 'POST',
      headers: JSON_BODY,
      body: JSON.stringify({ phone: '+14155550999', api_key: ORG_KEY, notes: ADMIN }),
      status: 422,
    },
    {
      path: '/v1/contacts',
      method: 'POST',
      headers: JSON_BODY,
      body: JSON.stringify({ phone: '+14155550998', notes: `call back; ${ADMIN}` }),
      status: 201,
    },
    {
      path: `/v1/calls?jwt=eyJhbGciOiJIUzI1NiJ9.e30.jwt1&bearer=${ORG_KEY}`,
      headers: { 'X-JWT-Assertion': 'eyJhbGciOiJSUzI1NiJ9.e30.asrt' },
      status: 400,
    },
    { path: '/v1/me', headers: { Referer: `http://app.test/cb?x=1#access_token=${ORG_KEY}` }, status: 200 },
  ]
  const SECRETS = [ADMIN, ORG_KEY, 'eyJhbGciOiJIUzI1NiJ9.e30.jwt1', 'eyJhbGciOiJSUzI1NiJ9.e30.asrt']

  it.each(['text', 'json'] as const)(
    'is in no answer, journal entry nor %s log line; the admin token not even by its last 4',
    async (logFormat) => {
      const { server, lines } = await loggedServer({ adminToken: ADMIN, organizations, logFormat })
      const answers = []
      for (const { path, method, headers, body, status } of SENT) {
        const answered = await call(server.url + path, { method, headers, body })
        expect(answered.status, path).toBe(status)
        answers.push(answered.body)
      }
      const journal = (await call(`${server.url}/_sandbox/requests`, { key: ADMIN })).body.data.reverse()
      await vi.waitFor(() => expect(lines).toHaveLength(SENT.length + 1))

      // Every answer but the created contact's, which is the client's own data (see below).
      const echoes = answers.filter((_, i) => i !== 4)
      for (const text of [JSON.stringify(echoes), JSON.stringify(journal), lines.join('\n')]) {
        expectNoLeak(text, SECRETS)
        expect(text).not.toContain(ADMIN.slice(-4))
      }
      expect(answers.slice(0, 2).map(({ error }: any) => [error.code, error.param])).toEqual([
        ['unknown_parameter', '(admin token)'],
        ['unknown_parameter', '…wxyz'],
      ])
      expect(answers[0].error.message).toContain('(admin token)')
      expect(journal.map(({ path, query }: any) => [path, query])).toEqual([
        ['/v1/calls', { '(admin token)': '' }],
        ['/v1/calls', { '…wxyz': '' }],
        ['/v1/calls/…wxyz', {}],
        ['/v1/contacts', {}],
        ['/v1/contacts', {}],
        ['/v1/calls', { jwt: '…jwt1', bearer: '…wxyz' }],
        ['/v1/me', {}],
      ])
      expect(JSON.parse(journal[3].request.body)).toEqual({
        phone: '+14155550999',
        api_key: '…wxyz',
        notes: '(admin token)',
      })
      expect(JSON.parse(journal[4].response.body).data.notes).toBe('call back; (admin token)')
      expect(journal[5].request.headers['x-jwt-assertion']).toBe('…asrt')
      expect(journal[6].request.headers.referer).toBe('http://app.test/cb?x=1#access_token=…wxyz')
      // What the API keeps is the client's data, as sent: only what the sandbox writes about the request is masked.
      const created = await call(`${server.url}/v1/contacts/${answers[4].data.id}`)
      expect(created.body.data.notes).toBe(`call back; ${ADMIN}`)
    },
  )

  it('is listed by GET /_sandbox/keys by its last 4 only, beside the built-in keys whole', async () => {
    const sandbox = createSandbox({ organizations, adminToken: ADMIN })
    await sandbox.ready
    const response = await answer(
      sandbox,
      new Request('http://sandbox.test/_sandbox/keys', { headers: { Authorization: `Bearer ${ADMIN}` } }),
    )
    const text = await response!.text()
    expect(text).not.toContain(ORG_KEY)
    const keys = (JSON.parse(text) as { data: { key: string }[] }).data.map(({ key }) => key)
    expect(keys).toContain('sk_sandbox_all')
    expect(keys).toContain('…wxyz')
  })

  it("is in neither the proxy's journal nor its drift report when the upstream echoes it", async () => {
    const PROXY_KEY = 'sk_live_PROXYKEY123456qrst'
    const upstream = await fakeUpstream((request, response) => {
      const sent = request.headers.authorization ?? ''
      response
        .writeHead(401, { 'Content-Type': 'text/html' })
        .end(`<html><body><p>${sent} is not a valid key.</p></body></html>`)
    })
    const { server: proxy, lines } = await loggedServer({ proxy: upstream })
    expect((await call(`${proxy.url}/v1/me`, { key: PROXY_KEY })).status).toBe(502)
    // A key the answer cut short, at the 80 characters a non-JSON body shows.
    const long = `sk_live_${'x'.repeat(40)}LONGKEY9876543210`
    expect((await call(`${proxy.url}/v1/me`, { key: long })).status).toBe(502)

    const journal = (await call(`${proxy.url}/_sandbox/requests`, { key: null })).body.data
    const drift = (await call(`${proxy.url}/_sandbox/drift`, { key: null })).body.data
    const got = journal.flatMap(({ contract }: any) => contract.violations.map(({ got }: any) => got))
    expect(got).toEqual([
      'text/html: "<html><body><p>Bearer …"',
      'text/html: "<html><body><p>Bearer …qrst is not a valid key.</p></body><"',
    ])
    await logLines(lines, 4)
    expectNoLeak(JSON.stringify([journal, drift, lines]), [PROXY_KEY, long])
  })
})
