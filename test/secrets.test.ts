import { describe, expect, it, vi } from 'vitest'
import { controlRoutes } from '../src/control/controlRoutes.js'
import { faultRoutes } from '../src/control/faultRoutes.js'
import { sessionRoutes } from '../src/control/sessionRoutes.js'
import { routes } from '../src/http/routes.js'
import { answer, createSandbox } from '../src/index.js'
import { isCredentialName } from '../src/sandbox/credentials.js'
import type { RunningServer } from '../src/server/startServer.js'
import { defaultOrganizations } from '../src/seed/fixtures.js'
import { call, fakeUpstream, sandboxServer } from './support/proxies.js'
import { expectNoLeak, loggedServer, logLines } from './support/secrets.js'
import { inProcess, NOW } from './support/transports.js'

/*
 * What the sandbox keeps of the credentials it is sent. The journal, the
 * request log, the usage report, a 401 and the OpenAPI document show a
 * built-in key whole, the admin token never, and any other credential by
 * its last 4 characters at most.
 */

const UNKNOWN_KEY = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'
const ADMIN_TOKEN = 'admin-0f8e2c41b7d94a6e'
const ALL_SCOPES = defaultOrganizations[0]!.keys[0]!.scopes

/** One request a way a credential travels, and the secrets in it: none may be kept whole. */
const CARRIERS: Array<{ name: string; headers: Record<string, string>; secrets: string[] }> = [
  { name: 'Cookie', headers: { Cookie: 'sid=3f9a0c2be71d44aa9c01; theme=dark' }, secrets: ['3f9a0c2be71d44aa9c01'] },
  { name: 'X-Api-Key', headers: { 'X-Api-Key': UNKNOWN_KEY }, secrets: [UNKNOWN_KEY] },
  {
    name: 'Proxy-Authorization',
    headers: { 'Proxy-Authorization': 'Basic cHJveHk6cGFzc3dvcmQxMjM=' },
    secrets: ['cHJveHk6cGFzc3dvcmQxMjM='],
  },
  {
    name: 'Authorization: Basic',
    headers: { Authorization: 'Basic dXNlcjpodW50ZXIyaHVudGVyMg==' },
    secrets: ['dXNlcjpodW50ZXIyaHVudGVyMg=='],
  },
  {
    name: 'Authorization: Bearer, an unknown key',
    headers: { Authorization: `Bearer ${UNKNOWN_KEY}` },
    secrets: [UNKNOWN_KEY],
  },
  {
    name: 'Authorization: Token a b c',
    headers: { Authorization: 'Token tok_a1b2 tok_c3d4 tok_e5f6' },
    secrets: ['tok_a1b2', 'tok_c3d4', 'tok_e5f6'],
  },
]

/** Sends every carrier, with `sk_sandbox_all` beside those that are no Authorization, so they reach an endpoint. */
async function sendCarriers(server: RunningServer): Promise<void> {
  for (const { name, headers } of CARRIERS) {
    const key = name.startsWith('Authorization') ? null : 'sk_sandbox_all'
    await call(`${server.url}/v1/me`, { key, headers })
  }
}

describe('the journal and the request log', () => {
  it('keep no credential whole, whatever header it came in', async () => {
    const { server, lines } = await loggedServer()
    await sendCarriers(server)
    const journal = (await call(`${server.url}/_sandbox/requests`, { key: null })).body.data.reverse()
    expectNoLeak(
      JSON.stringify(journal),
      CARRIERS.flatMap(({ secrets }) => secrets),
    )
    expectNoLeak(
      lines.join('\n'),
      CARRIERS.flatMap(({ secrets }) => secrets),
    )

    expect(journal.map(({ status, key }: any) => [status, key])).toEqual([
      [200, 'sk_sandbox_all'],
      [200, 'sk_sandbox_all'],
      [200, 'sk_sandbox_all'],
      [401, null],
      [401, '…p7dc'],
      [401, null],
    ])
    const headers = journal.map(({ request }: any) => request.headers)
    expect(headers[0]).toMatchObject({ cookie: 'sid=…9c01; theme=…', authorization: 'Bearer sk_sandbox_all' })
    expect(headers[1]).toMatchObject({ 'x-api-key': '…p7dc' })
    expect(headers[2]).toMatchObject({ 'proxy-authorization': 'Basic …' })
    expect(headers.slice(3).map(({ authorization }: any) => authorization)).toEqual([
      'Basic …',
      'Bearer …p7dc',
      'Token …e5f6',
    ])
    const logged = await logLines(lines, CARRIERS.length + 1)
    expect(logged.map(({ key }) => key)).toEqual([...journal.map(({ key }: any) => key), null])
  })

  it("never show the admin token, right or wrong; a wrong one's last 4 at most", async () => {
    const { server, lines } = await loggedServer({ adminToken: ADMIN_TOKEN })
    const asAdmin = { key: ADMIN_TOKEN }
    expect((await call(`${server.url}/_sandbox/health`, asAdmin)).status).toBe(200)
    expect((await call(`${server.url}/_sandbox/health`, { key: 'admin-guess-000000wxyz' })).status).toBe(401)
    expect((await call(`${server.url}/_sandbox/health`, { key: 'admin-0f8' })).status).toBe(401)
    // The admin token sent to the API, where it is no key.
    expect((await call(`${server.url}/v1/me`, asAdmin)).status).toBe(401)
    const journal = (await call(`${server.url}/_sandbox/requests`, asAdmin)).body.data

    const logged = await logLines(lines, 5)
    expect(logged.map(({ path, key }) => [path, key])).toEqual([
      ['/_sandbox/health', '(admin token)'],
      ['/_sandbox/health', '…wxyz'],
      ['/_sandbox/health', '…'],
      ['/v1/me', '(admin token)'],
      ['/_sandbox/requests', '(admin token)'],
    ])
    expect(journal).toHaveLength(1)
    expect(journal[0]).toMatchObject({
      key: '(admin token)',
      request: { headers: { authorization: 'Bearer (admin token)' } },
    })
    // Not even its last 4 characters.
    for (const text of [lines.join('\n'), JSON.stringify(journal)]) expect(text).not.toContain(ADMIN_TOKEN.slice(-4))
  })
})

describe('proxy mode', () => {
  it("keeps no credential of the client's, nor the upstream's Set-Cookie, whole in its journal and log", async () => {
    const world = createSandbox({ now: NOW })
    await world.ready
    const upstream = await fakeUpstream(async (request, response) => {
      const answered = (await answer(
        world,
        new Request(new URL(request.url!, 'http://upstream.test'), {
          headers: { authorization: request.headers.authorization ?? '' },
        }),
      ))!
      response
        .writeHead(answered.status, {
          ...Object.fromEntries(answered.headers),
          'Set-Cookie': 'upstream_session=9d2c51aa03fe4b7e8c66; Path=/; HttpOnly',
        })
        .end(await answered.text())
    })
    const { server: proxy, lines } = await loggedServer({ proxy: upstream })
    await sendCarriers(proxy)
    const { body } = await call(`${proxy.url}/_sandbox/requests`, { key: null })
    expect(body.data).toHaveLength(CARRIERS.length)
    const secrets = [...CARRIERS.flatMap(({ secrets }) => secrets), '9d2c51aa03fe4b7e8c66']
    expectNoLeak(JSON.stringify(body), secrets)
    expect(body.data.map(({ key }: any) => key).reverse()).toEqual([
      'sk_sandbox_all',
      'sk_sandbox_all',
      'sk_sandbox_all',
      null,
      '…p7dc',
      null,
    ])
    await logLines(lines, CARRIERS.length + 1)
    expectNoLeak(lines.join('\n'), secrets)
  })
})

/** A credential under each name a client may send one in a query: none may be kept whole. */
const IN_QUERY = {
  access_token: 'sk_live_9TqwZp4RkVx7Lm2Nqa01',
  api_key: 'ak_Hv3Jd8WcYb5Fs1Ktqa02',
  key: 'sk_team_Zr6Pn2Xe9Gu4Mdqa03',
  token: 'tok_Bw7Qs3Ly8Tc5Vhqa04',
  password: 'Kj4Rz9Wm2Pe7Xdqa05',
  client_secret: 'cs_Nf6Yt1Hq8Ua3Gbqa06',
  sig: 'Dm9Vx4Kr7Lw2Zsqa07',
  signature: 'Pc5Jn8Ef3Ry6Tkqa08',
}
const QUERY_SECRETS = Object.values(IN_QUERY)
/** Each of them as `shownCredential` shows it. */
const SHOWN_IN_QUERY = Object.fromEntries(
  Object.entries(IN_QUERY).map(([name, secret]) => [name, `…${secret.slice(-4)}`]),
)
const WITH_TOKEN = `/v1/calls?access_token=${IN_QUERY.access_token}&status=completed`
const WITH_TOKEN_SHOWN = '/v1/calls?access_token=…qa01&status=completed'

describe('a credential in the query', () => {
  it("is shown by its last 4 in the journal's query and the log's path; the API's own parameters whole", async () => {
    const { server, lines } = await loggedServer()
    const everyName = `/v1/calls?${new URLSearchParams({ ...IN_QUERY, status: 'completed' })}`
    const first = await call(`${server.url}/v1/calls?status=completed&limit=1`)
    const owns = [
      '/v1/calls?status=completed&limit=1',
      `/v1/calls?status=completed&limit=1&cursor=${first.body.next_cursor}`,
      '/v1/calls?phone=%2B14155550123&since=2026-11-01',
      '/v1/leads?urgency=high&status=new',
    ]
    for (const path of [WITH_TOKEN, everyName, ...owns.slice(1)]) await call(server.url + path)
    // Found by the journal's own filters: its path, and a key, which its log line shows by its last 4.
    const found = await call(`${server.url}/_sandbox/requests?path=/v1/calls&key=${IN_QUERY.key}`, { key: null })
    expect(found.body.count).toBe(0)
    const journal = (await call(`${server.url}/_sandbox/requests?path=/v1/*`, { key: null })).body.data.reverse()

    expect(journal.map(({ path, query }: any) => [path, query])).toEqual([
      ['/v1/calls', { status: 'completed', limit: '1' }],
      ['/v1/calls', { access_token: '…qa01', status: 'completed' }],
      ['/v1/calls', { ...SHOWN_IN_QUERY, status: 'completed' }],
      ['/v1/calls', { status: 'completed', limit: '1', cursor: first.body.next_cursor }],
      ['/v1/calls', { phone: '+14155550123', since: '2026-11-01' }],
      ['/v1/leads', { urgency: 'high', status: 'new' }],
    ])
    expect(journal.map(({ status }: any) => status)).toEqual([200, 400, 400, 200, 200, 200])
    expectNoLeak(JSON.stringify(journal), QUERY_SECRETS)

    const logged = await logLines(lines, 8)
    expect(logged.map(({ path }) => path)).toEqual([
      owns[0],
      WITH_TOKEN_SHOWN,
      `/v1/calls?${Object.entries(SHOWN_IN_QUERY)
        .map(([name, shown]) => `${name}=${shown}`)
        .join('&')}&status=completed`,
      ...owns.slice(1),
      '/_sandbox/requests?path=/v1/calls&key=…qa03',
      '/_sandbox/requests?path=/v1/*',
    ])
    expectNoLeak(lines.join('\n'), QUERY_SECRETS)
  })

  it('is shown by its last 4 in the text log line', async () => {
    const { server, lines } = await loggedServer({ logFormat: 'text' })
    expect((await call(server.url + WITH_TOKEN)).status).toBe(400)
    await vi.waitFor(() => expect(lines).toHaveLength(1))
    expect(lines[0]!.split(' ')).toEqual([
      'GET',
      WITH_TOKEN_SHOWN,
      '400',
      expect.stringMatching(/^\d+\.\d{3}$/),
      'ms',
      expect.stringMatching(/^req_/),
    ])
  })

  it("is never a parameter of the sandbox's own, but for the journal's key filter, which is a key", () => {
    const named = [...routes, ...controlRoutes, ...faultRoutes, ...sessionRoutes].flatMap(({ method, path, query }) =>
      Object.keys(query.shape)
        .filter(isCredentialName)
        .map((name) => `${method} ${path}?${name}`),
    )
    expect(named).toEqual(['GET /_sandbox/requests?key'])
  })
})

describe('several Set-Cookie headers', () => {
  const SENT = [
    'sid=8f14e45fceea167a5a36; Path=/; HttpOnly',
    'csrf=0c9d8e7f6a5b4c3d2e1f; Expires=Wed, 21 Oct 2026 07:28:00 GMT',
  ]
  const KEPT = 'sid=…5a36; Path=/; HttpOnly\ncsrf=…2e1f; Expires=Wed, 21 Oct 2026 07:28:00 GMT'

  it('are each kept in the journal, one a line, each shown by its last 4: sent apart', async () => {
    const sandbox = createSandbox({ now: NOW })
    const headers: [string, string][] = [
      ['Authorization', 'Bearer sk_sandbox_all'],
      ...SENT.map((cookie): [string, string] => ['Set-Cookie', cookie]),
    ]
    expect((await answer(sandbox, new Request('https://api.test/v1/me', { headers })))?.status).toBe(200)
    expect(sandbox.journal.entries(1)[0]?.request?.headers['set-cookie']).toBe(KEPT)
  })

  it('are each kept in the journal, one a line, each shown by its last 4: folded into one, as fetch sends them', async () => {
    const server = await sandboxServer()
    const headers = new Headers({ Authorization: 'Bearer sk_sandbox_all' })
    for (const cookie of SENT) headers.append('Set-Cookie', cookie)
    expect((await fetch(`${server.url}/v1/me`, { headers })).status).toBe(200)
    const [entry] = (await call(`${server.url}/_sandbox/requests`, { key: null })).body.data
    expect(entry.request.headers['set-cookie']).toBe(KEPT)
  })
})

describe('proxy mode, a credential in the query', () => {
  it('is shown by its last 4 in the journal, the drift report and the log; what goes upstream is as sent', async () => {
    const upstreamSaw: string[] = []
    // An upstream that answers a page where the contract wants a 400 (access_token is no parameter): a drift.
    const upstream = await fakeUpstream((request, response) => {
      upstreamSaw.push(request.url!)
      response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"data":[]}')
    })
    const { server: proxy, lines } = await loggedServer({ proxy: upstream })
    expect((await call(proxy.url + WITH_TOKEN)).headers.get('x-sandbox-contract')).toMatch(/^violations=/)
    expect(upstreamSaw).toEqual([WITH_TOKEN])

    const journal = (await call(`${proxy.url}/_sandbox/requests`, { key: null })).body.data
    expect(journal.map(({ path, query }: any) => [path, query])).toEqual([
      ['/v1/calls', { access_token: '…qa01', status: 'completed' }],
    ])
    const drift = (await call(`${proxy.url}/_sandbox/drift`, { key: null })).body.data
    const examples = drift.endpoints.flatMap(({ rules }: any) => rules.flatMap(({ examples }: any) => examples))
    expect(examples.length).toBeGreaterThan(0)
    expect(new Set(examples.map(({ request }: any) => request))).toEqual(new Set([`GET ${WITH_TOKEN_SHOWN}`]))
    const logged = await logLines(lines, 3)
    expect(logged[0].path).toBe(WITH_TOKEN_SHOWN)
    expectNoLeak(JSON.stringify([journal, drift, logged]), [IN_QUERY.access_token])
  })
})

describe("a user's own organizations (--organizations)", () => {
  const TEAM_KEYS = ['team_alpha_key_5c1d2e3f', 'team_beta_key_9a8b7c6d']
  const organizations = defaultOrganizations.map((organization, i) => ({
    ...organization,
    keys: [{ key: TEAM_KEYS[i]!, scopes: ALL_SCOPES }],
  }))

  it.each([
    ['no Authorization', { key: null }],
    ['an Authorization other than Bearer', { key: null, headers: { Authorization: 'Basic dGVhbTpwYXNz' } }],
    ['an unknown key', { key: UNKNOWN_KEY }],
  ])('answers %s with a 401 that names none of their keys, and says where they are', async (_, options) => {
    const api = await inProcess({ organizations })
    try {
      const { status, body } = await api.request('/v1/me', options)
      expect(status).toBe(401)
      expectNoLeak(JSON.stringify(body), TEAM_KEYS)
      expect(body.error.message).toContain('--organizations')
      expect(body.error.message).not.toContain('sk_sandbox')
    } finally {
      await api.close()
    }
  })

  it("lists none of their keys in /openapi.json, each shown by its last 4 beside its organization's name", async () => {
    const api = await inProcess({ organizations })
    try {
      const { body } = await api.request('/openapi.json', { key: null })
      expectNoLeak(JSON.stringify(body), TEAM_KEYS)
      expect(body.info.description).toContain(`| \`…2e3f\` | ${organizations[0]!.organization_name} |`)
    } finally {
      await api.close()
    }
  })

  it('shows their keys by their last 4 in the journal and the usage report; the journal finds them as sent or as shown', async () => {
    const api = await inProcess({ organizations })
    try {
      expect((await api.request('/v1/me', { key: TEAM_KEYS[0]! })).status).toBe(200)
      expect((await api.request('/v1/calls?limit=1', { key: TEAM_KEYS[1]! })).status).toBe(200)
      const read = async (path: string) => (await api.request(path, { key: null })).body
      const journal = await read('/_sandbox/requests')
      expect(journal.data.map(({ key }: any) => key)).toEqual(['…7c6d', '…2e3f'])
      const usage = await read('/_sandbox/usage')
      expect(usage.data.map(({ key }: any) => key)).toEqual(['…2e3f', '…7c6d'])
      expectNoLeak(JSON.stringify([journal, usage]), TEAM_KEYS)

      for (const filter of [TEAM_KEYS[0]!, '…2e3f']) {
        const found = await read(`/_sandbox/requests?key=${encodeURIComponent(filter)}`)
        expect(
          found.data.map(({ path }: any) => path),
          filter,
        ).toEqual(['/v1/me'])
      }
    } finally {
      await api.close()
    }
  })
})

describe('the built-in keys', () => {
  it('are what a 401 lists, and a missing Authorization names one', async () => {
    const api = await inProcess()
    try {
      const unknown = await api.request('/v1/me', { key: UNKNOWN_KEY })
      expect(unknown.body.error.message).toBe(
        'Unknown API key. The sandbox keys are: sk_sandbox_all, sk_sandbox_readonly, sk_sandbox_calls, sk_sandbox_org2.',
      )
      const missing = await api.request('/v1/me', { key: null })
      expect(missing.body.error.message).toBe(
        'No Authorization header. Send Authorization: Bearer <key>, with a sandbox key such as sk_sandbox_all.',
      )
      const described = (await api.request('/openapi.json', { key: null })).body.info.description
      expect(described).toContain('| `sk_sandbox_all` | Harbor Dental Care |')
    } finally {
      await api.close()
    }
  })
})
