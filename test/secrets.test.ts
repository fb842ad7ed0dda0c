import { describe, expect, it, vi } from 'vitest'
import { answer, createSandbox } from '../src/index.js'
import type { RunningServer, ServerOptions } from '../src/server/startServer.js'
import { defaultOrganizations } from '../src/world/fixtures.js'
import { call, fakeUpstream, sandboxServer } from './support/proxies.js'
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

/** Any run of 5 characters of `secret` in `text`: more than the last 4 a credential may show. */
function leaked(text: string, secret: string): string | undefined {
  for (let start = 0; start + 5 <= secret.length; start++) {
    const run = secret.slice(start, start + 5)
    if (text.includes(run)) return run
  }
  return undefined
}

function expectNoLeak(text: string, secrets: readonly string[]): void {
  for (const secret of secrets) expect(leaked(text, secret), `${secret} in ${text}`).toBeUndefined()
}

/** A standalone sandbox writing its JSON log into `lines`. */
async function loggedServer(options: ServerOptions = {}): Promise<{ server: RunningServer; lines: string[] }> {
  const lines: string[] = []
  const server = await sandboxServer({ ...options, quiet: false, log: (line) => lines.push(line), logFormat: 'json' })
  return { server, lines }
}

/** The server's JSON log lines, once there are `count` of them (each is written once its answer has gone out). */
async function logLines(lines: string[], count: number): Promise<any[]> {
  await vi.waitFor(() => expect(lines).toHaveLength(count))
  return lines.map((line) => JSON.parse(line))
}

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
