import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DataFileError } from '../src/server/dataFile/format.js'
import { RecordingFileError } from '../src/server/recordingFile.js'
import { call, closeServer, pagesOf, sandboxServer } from './support/proxies.js'
import { tempFolder } from './support/tempFolder.js'
import { ORG_1, ORG_2 } from './support/transports.js'

/*
 * --record FILE keeps what the upstream answered through the proxy; --world
 * FILE starts a sandbox from it, whose answers are the upstream's records,
 * served with the sandbox's own filters, cursors and scopes.
 */

const LISTS = ['/v1/calls', '/v1/contacts', '/v1/leads', '/v1/appointments']

/** Every record of a list, page after page. */
async function walk(base: string, path: string, key: string): Promise<unknown[]> {
  const pages = await pagesOf(base, path, key)
  for (const page of pages) expect(page.status, `${path} with ${key}`).toBe(200)
  return pages.flatMap((page) => page.body.data)
}

/**
 * A recording of a second sandbox through the proxy: every list of both
 * organizations, three calls with their messages, a contact created, the
 * readonly key's account. Resolves once the proxy closed and wrote it.
 */
async function recorded() {
  const file = join(tempFolder('record'), 'recorded.json')
  const upstream = await sandboxServer()
  const proxy = await sandboxServer({ proxy: upstream.url, record: file })
  const created = await call(`${proxy.url}/v1/contacts`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{"phone":"+14155550123","name":"Dana Whitfield"}',
  })
  expect(created.status).toBe(201)
  for (const key of ['sk_sandbox_all', 'sk_sandbox_org2'])
    for (const list of LISTS) await walk(proxy.url, `${list}?limit=100`, key)
  const newest = (await call(`${proxy.url}/v1/calls?limit=3`)).body.data as Array<{ id: string }>
  for (const { id } of newest) expect((await call(`${proxy.url}/v1/calls/${id}`)).status).toBe(200)
  expect((await call(`${proxy.url}/v1/me`, { key: 'sk_sandbox_readonly' })).status).toBe(200)
  await closeServer(proxy)
  return { file, upstream, newest: newest.map(({ id }) => id), created: created.body.data }
}

describe('--record FILE, then --world FILE', () => {
  it('answers from the recorded world the very records the upstream gave, each list page by page, with the stand-in key of the key that recorded them', async () => {
    const { file, upstream, newest, created } = await recorded()
    const world = await sandboxServer({ world: file })

    for (const list of LISTS) {
      expect(await walk(world.url, `${list}?limit=7`, 'sk_recorded_1'), list).toEqual(
        await walk(upstream.url, `${list}?limit=100`, 'sk_sandbox_all'),
      )
      expect(await walk(world.url, list, 'sk_recorded_2'), list).toEqual(
        await walk(upstream.url, list, 'sk_sandbox_org2'),
      )
    }
    // A call seen on its own comes back with its messages, times and all.
    for (const id of newest)
      expect((await call(`${world.url}/v1/calls/${id}`, { key: 'sk_recorded_1' })).body.data).toEqual(
        (await call(`${upstream.url}/v1/calls/${id}`)).body.data,
      )
    expect((await call(`${world.url}/v1/contacts/${created.id}`, { key: 'sk_recorded_1' })).body.data).toEqual(created)
    // The sandbox's own filters and cursors over them.
    expect(await walk(world.url, '/v1/calls?status=failed&limit=5', 'sk_recorded_1')).toEqual(
      await walk(upstream.url, '/v1/calls?status=failed', 'sk_sandbox_all'),
    )
    expect(await walk(world.url, '/v1/leads?urgency=high', 'sk_recorded_1')).toEqual(
      await walk(upstream.url, '/v1/leads?urgency=high', 'sk_sandbox_all'),
    )
    // The account, as the upstream said it, for each key that recorded.
    const me = async (base: string, key: string) => (await call(`${base}/v1/me`, { key })).body.data
    expect(await me(world.url, 'sk_recorded_1')).toEqual(await me(upstream.url, 'sk_sandbox_all'))
    expect(await me(world.url, 'sk_recorded_2')).toEqual(await me(upstream.url, 'sk_sandbox_org2'))
    expect(await me(world.url, 'sk_recorded_3')).toEqual(await me(upstream.url, 'sk_sandbox_readonly'))
  })

  it("keeps each organization's records to its own keys, with their scopes, and never answers the keys that recorded", async () => {
    const { file, upstream } = await recorded()
    const world = await sandboxServer({ world: file })
    const org2Call = (await call(`${upstream.url}/v1/calls?limit=1`, { key: 'sk_sandbox_org2' })).body.data[0]
    expect((await call(`${world.url}/v1/calls/${org2Call.id}`, { key: 'sk_recorded_2' })).status).toBe(200)
    expect((await call(`${world.url}/v1/calls/${org2Call.id}`, { key: 'sk_recorded_1' })).status).toBe(404)
    expect((await call(`${world.url}/v1/calls/${org2Call.id}`, { key: 'sk_recorded_3' })).status).toBe(404)
    expect(
      (
        await call(`${world.url}/v1/contacts`, {
          key: 'sk_recorded_3',
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '{"phone":"+14155550100"}',
        })
      ).status,
    ).toBe(403)
    expect((await call(`${world.url}/v1/me`, { key: 'sk_sandbox_all' })).status).toBe(401)
    expect(
      world.sandbox.organizations.map(({ organization_id, keys }) => [organization_id, keys.map(({ key }) => key)]),
    ).toEqual([
      [ORG_1, ['sk_recorded_1', 'sk_recorded_3']],
      [ORG_2, ['sk_recorded_2']],
    ])
  })

  it('writes no key, no Authorization, no cookie: nothing but the answers\u2019 bodies', async () => {
    const { file } = await recorded()
    const text = readFileSync(file, 'utf8')
    for (const secret of ['sk_sandbox', 'Bearer', 'authorization', 'cookie', 'x-request-id', 'req_'])
      expect(text.toLowerCase(), secret).not.toContain(secret.toLowerCase())
    const recording = JSON.parse(text)
    expect(recording).toMatchObject({
      format: 'call-sandbox recording',
      version: 1,
      recorded_at: '2026-11-20T12:00:00.000Z',
    })
    expect(Object.keys(recording).sort()).toEqual([
      'format',
      'organizations',
      'recorded_at',
      'records',
      'upstream',
      'version',
    ])
  })

  it('stands at the instant of the recording, and a reset comes back to the recorded records', async () => {
    const { file } = await recorded()
    const world = await sandboxServer({ world: file })
    expect(world.sandbox.clock.iso()).toBe('2026-11-20T12:00:00.000Z')
    const before = world.sandbox.health().records
    expect(
      (
        await call(`${world.url}/v1/contacts`, {
          key: 'sk_recorded_1',
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '{"phone":"+14155550101"}',
        })
      ).status,
    ).toBe(201)
    await call(`${world.url}/_sandbox/reset`, { key: null, method: 'POST' })
    expect(world.sandbox.health().records).toEqual(before)
    // A session of the recorded world is that world too.
    expect((await call(`${world.url}/sessions/mine/v1/calls?limit=1`, { key: 'sk_recorded_1' })).status).toBe(200)
  })

  it('keeps the writes of a recorded world in a --data file across restarts', async () => {
    const { file } = await recorded()
    const data = join(tempFolder('record-data'), 'data.json')
    const first = await sandboxServer({ world: file, data })
    const created = await call(`${first.url}/v1/contacts`, {
      key: 'sk_recorded_1',
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"phone":"+14155550102"}',
    })
    await closeServer(first)
    const again = await sandboxServer({ world: file, data })
    expect(
      (await call(`${again.url}/v1/contacts/${created.body.data.id}`, { key: 'sk_recorded_1' })).body.data,
    ).toEqual(created.body.data)
    // The data file belongs to that recording: a seeded world does not take it.
    await closeServer(again)
    await expect(sandboxServer({ data })).rejects.toThrow(DataFileError)
  })
})

describe('files --record and --world refuse', () => {
  const folder = () => tempFolder('record-bad')

  it('--record without --proxy, --world with --proxy or --organizations, and a --record file that exists already', async () => {
    const file = join(folder(), 'recorded.json')
    await expect(sandboxServer({ record: file })).rejects.toThrow(/give --proxy/)
    await expect(sandboxServer({ world: file, proxy: 'http://127.0.0.1:1' })).rejects.toThrow(/--world and --proxy/)
    await expect(sandboxServer({ world: file, organizations: [] })).rejects.toThrow(/--world and --organizations/)
    writeFileSync(file, 'mine')
    await expect(sandboxServer({ proxy: 'http://127.0.0.1:1', record: file })).rejects.toThrow(RecordingFileError)
    expect(readFileSync(file, 'utf8')).toBe('mine')
  })

  const badFiles: Array<{ name: string; content: string; error: RegExp }> = [
    { name: 'a file that is no JSON', content: 'not json', error: /cannot be read as JSON/ },
    {
      name: 'a data file',
      content: JSON.stringify({ format: 'call-sandbox data', version: 3 }),
      error: /is a data file \(--data\), not a recording/,
    },
    { name: 'some other JSON', content: '{"calls":[]}', error: /is not a call-sandbox recording/ },
    {
      name: 'a damaged recording',
      content: JSON.stringify({ format: 'call-sandbox recording', version: 1 }),
      error: /is a damaged recording/,
    },
    {
      name: 'a recording of nothing yet',
      content: JSON.stringify({
        format: 'call-sandbox recording',
        version: 1,
        upstream: 'x',
        recorded_at: '2026-11-20T12:00:00.000Z',
        organizations: [],
        records: { calls: [], contacts: [], leads: [], appointments: [] },
      }),
      error: /recorded nothing yet/,
    },
  ]
  for (const { name, content, error } of badFiles) {
    it(`--world stops the start with a clear error at ${name}`, async () => {
      const file = join(folder(), 'world.json')
      writeFileSync(file, content)
      await expect(sandboxServer({ world: file })).rejects.toThrow(error)
      await expect(sandboxServer({ world: file })).rejects.toThrow(RecordingFileError)
    })
  }

  it('--world names the records that do not fit: a bad field, a record of no organization, a repeated id', async () => {
    const { file } = await recorded()
    const recording = JSON.parse(readFileSync(file, 'utf8'))
    recording.records.calls[0].caller_phone = 'not a phone'
    recording.records.leads[0].organization_id = '00000000-0000-4000-8000-000000000000'
    recording.records.contacts.push(recording.records.contacts[0])
    writeFileSync(file, JSON.stringify(recording))
    const failed = sandboxServer({ world: file })
    await expect(failed).rejects.toThrow(RecordingFileError)
    await expect(failed).rejects.toThrow(/records\.calls\[0\]\.caller_phone/)
    await expect(failed).rejects.toThrow(
      /records\.leads\[0\]: organization 00000000-0000-4000-8000-000000000000 is none of the organizations/,
    )
    await expect(failed).rejects.toThrow(/appears twice/)
  })

  it('--world refuses a recording whose URLs are not http(s): a javascript: recording_url, a data: calendar_event_link', async () => {
    const { file } = await recorded()
    const recording = JSON.parse(readFileSync(file, 'utf8'))
    recording.records.calls[1].recording_url = 'JAVA\tSCRIPT:alert(sessionStorage.getItem("call-sandbox-admin-token"))'
    recording.records.appointments[0].calendar_event_link = 'data:text/html,<script>alert(1)</script>'
    writeFileSync(file, JSON.stringify(recording))
    const failed = sandboxServer({ world: file })
    await expect(failed).rejects.toThrow(RecordingFileError)
    await expect(failed).rejects.toThrow(
      /records\.calls\[1\]\.recording_url: must be an absolute http: or https: URL\n/,
    )
    await expect(failed).rejects.toThrow(
      /records\.appointments\[0\]\.calendar_event_link: must be an absolute http: or https: URL/,
    )
  })

  it('--data names a recording given to it, and leaves it as it is', async () => {
    const { file } = await recorded()
    const before = readFileSync(file, 'utf8')
    await expect(sandboxServer({ data: file })).rejects.toThrow(
      /is a recording \(--record\), not a data file: start a sandbox from it with --world/,
    )
    expect(readFileSync(file, 'utf8')).toBe(before)
  })
})
