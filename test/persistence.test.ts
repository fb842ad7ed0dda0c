import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { DataFileError } from '../src/server/dataFile/format.js'
import { startServer, type RunningServer, type ServerOptions } from '../src/server/startServer.js'
import { killChildren, listening, runCli } from './support/cli.js'
import { endingOf } from './support/endings.js'
import { pagesOf } from './support/proxies.js'
import { tempFolder } from './support/tempFolder.js'
import { NOW } from './support/transports.js'

const AUTH = { Authorization: 'Bearer sk_sandbox_all' }
const running: RunningServer[] = []

async function start(options: ServerOptions): Promise<RunningServer> {
  const server = await startServer({ port: 0, quiet: true, ...options })
  running.push(server)
  return server
}

async function stop(server: RunningServer): Promise<void> {
  running.splice(running.indexOf(server), 1)
  await server.close()
}

function createContact(server: RunningServer, phone: string) {
  return fetch(`${server.url}/v1/contacts`, {
    method: 'POST',
    headers: { ...AUTH, 'Content-Type': 'application/json' },
    body: JSON.stringify({ phone, name: 'Kept Across Restarts' }),
  })
}

/** The file's lines: its header, then one entry a write. */
function linesOf(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
}

async function listContacts(server: RunningServer) {
  return (await (await fetch(`${server.url}/v1/contacts?limit=100`, { headers: AUTH })).json()).data
}

/** Byte offsets from `from` to `to`: every one near both ends, and every 97th between. */
function cutsOf(from: number, to: number): number[] {
  const cuts = new Set<number>()
  for (let cut = from; cut < to; cut++) if (cut - from < 8 || to - cut <= 8 || (cut - from) % 97 === 0) cuts.add(cut)
  return [...cuts]
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()))
})

describe('--data FILE', () => {
  const folder = () => tempFolder('data')

  it('shows after a restart what was written before, and goes on making new ids', async () => {
    const file = join(folder(), 'sandbox.json')
    const first = await start({ data: file })
    const created = await (await createContact(first, '+14155550177')).json()
    const { call } = await first.sandbox.addCall({ status: 'completed' })
    await stop(first)

    const second = await start({ data: file })
    const contact = await (await fetch(`${second.url}/v1/contacts/${created.data.id}`, { headers: AUTH })).json()
    expect(contact.data).toEqual(created.data)
    const listed = await (await fetch(`${second.url}/v1/calls/${call.id}`, { headers: AUTH })).json()
    expect(listed.data.transcript).toBe(call.transcript)
    expect(listed.data.messages.length).toBeGreaterThan(0)
    // The world itself is the same world: seeded at the same instant.
    expect(second.sandbox.options.now).toBe(first.sandbox.options.now)

    const next = await (await createContact(second, '+14155550188')).json()
    const uninterrupted = await start({ now: new Date(first.sandbox.options.now).toISOString(), clock: 'running' })
    await createContact(uninterrupted, '+14155550177')
    await uninterrupted.sandbox.addCall({ status: 'completed' })
    const expected = await (await createContact(uninterrupted, '+14155550188')).json()
    expect(next.data.id).toBe(expected.data.id)
  })

  it('keeps a stopped clock stopped at the same instant', async () => {
    const file = join(folder(), 'sandbox.json')
    await stop(await start({ data: file, now: NOW }))
    const again = await start({ data: file })
    expect(again.sandbox.clock.iso()).toBe(NOW)
    expect(again.sandbox.options.fixedClock).toBe(true)
  })

  it('keeps a clock that was set or moved where it was', async () => {
    const file = join(folder(), 'sandbox.json')
    const first = await start({ data: file, now: NOW })
    first.sandbox.clock.advance(3 * 3_600_000)
    await stop(first)
    const again = await start({ data: file })
    expect(again.sandbox.clock.iso()).toBe('2026-11-20T15:00:00.000Z')
    await again.sandbox.reset()
    expect(again.sandbox.clock.iso()).toBe(NOW)
    expect(JSON.parse(linesOf(file)[0]!).clock_offset_ms).toBe(0)
  })

  it('keeps a simulated live call, which ends after the restart when the clock reaches its end', async () => {
    const file = join(folder(), 'sandbox.json')
    const first = await start({ data: file, now: NOW })
    const simulated = await (
      await fetch(`${first.url}/_sandbox/calls`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"status":"in-progress"}',
      })
    ).json()
    await stop(first)

    const second = await start({ data: file })
    const live = await (await fetch(`${second.url}/v1/calls/${simulated.data.id}`, { headers: AUTH })).json()
    expect(live.data).toEqual(simulated.data)
    second.sandbox.clock.advance(30 * 60_000)
    const ended = await (await fetch(`${second.url}/v1/calls/${simulated.data.id}`, { headers: AUTH })).json()
    expect(ended.data.status).toBe('completed')
    expect(ended.data.messages.slice(0, live.data.messages.length)).toEqual(live.data.messages)
    expect(ended.data.messages.length).toBeGreaterThan(live.data.messages.length)
  })

  it.each([
    ['after it ended, before its lead came', (endedAt: number, _leadAt: number) => endedAt + 1],
    ['after its lead came', (_endedAt: number, leadAt: number) => leadAt],
  ])('restarts with a simulated live call %s, and the lead still comes', async (_when, clockAt) => {
    const file = join(folder(), 'sandbox.json')
    const first = await start({ data: file, now: NOW })
    const { call } = await first.sandbox.addCall({ status: 'in-progress', reason: 'implant_quote' })
    const ending = endingOf(first.sandbox, call.id)
    first.sandbox.clock.set(clockAt(Date.parse(ending.call.ended_at), Date.parse(ending.lead!.created_at)))
    const before = await (await fetch(`${first.url}/v1/calls/${call.id}`, { headers: AUTH })).json()
    expect(before.data.status).toBe('completed')
    await stop(first)

    const second = await start({ data: file })
    const after = await (await fetch(`${second.url}/v1/calls/${call.id}`, { headers: AUTH })).json()
    expect(after.data).toEqual(before.data)
    second.sandbox.clock.advance(60_000)
    const leads = await (await fetch(`${second.url}/v1/leads?limit=100`, { headers: AUTH })).json()
    expect(leads.data.filter((lead: { call_log_id: string }) => lead.call_log_id === call.id)).toHaveLength(1)
  })

  it('keeps the scenario a reset swapped to, and refuses the file under another --scenario', async () => {
    const file = join(folder(), 'sandbox.json')
    const first = await start({ data: file, now: NOW })
    await first.sandbox.reset({ scenario: 'empty' })
    await createContact(first, '+14155550177')
    await stop(first)

    const second = await start({ data: file })
    expect(second.sandbox.options.scenario).toBe('empty')
    expect(second.sandbox.db.count('calls')).toBe(0)
    expect(second.sandbox.db.count('contacts')).toBe(1)
    await stop(second)

    const error = await startServer({ port: 0, quiet: true, data: file, scenario: 'busy' }).catch((caught) => caught)
    expect(error).toBeInstanceOf(DataFileError)
    expect(error.message).toMatch(/scenario empty, not busy/)
  })

  it('starts the file over on a reset: one header, nothing written', async () => {
    const file = join(folder(), 'sandbox.log')
    const server = await start({ data: file, now: NOW })
    await createContact(server, '+14155550199')
    expect(linesOf(file)).toHaveLength(2)
    await server.sandbox.reset()
    const [header, ...log] = linesOf(file)
    expect(log).toEqual([])
    expect(JSON.parse(header!)).toMatchObject({ version: 4, changes: { writes: 0, inserted: [], changed: [] } })
  })

  it('appends one line a write, and keeps nothing beside the file but its lock, gone once closed', async () => {
    const dir = folder()
    const server = await start({ data: join(dir, 'sandbox.log'), now: NOW })
    for (let i = 0; i < 5; i++) await createContact(server, `+1415555020${i}`)
    expect(linesOf(join(dir, 'sandbox.log'))).toHaveLength(6)
    expect(readdirSync(dir).sort()).toEqual(['sandbox.log', 'sandbox.log.lock'])
    await stop(server)
    expect(readdirSync(dir)).toEqual(['sandbox.log'])
  })

  it('loads a file cut short at any byte of its last write, dropping that write only, and goes on from there', async () => {
    const file = join(folder(), 'sandbox.log')
    const server = await start({ data: file, now: NOW })
    const kept = await (await createContact(server, '+14155550171')).json()
    await createContact(server, '+14155550172')
    await stop(server)
    const whole = readFileSync(file)
    const lastLineStart = whole.lastIndexOf('\n', whole.length - 2) + 1
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    // Every byte of the last line but its newline: a crash before the write was answered.
    for (const cut of cutsOf(lastLineStart, whole.length - 1)) {
      writeFileSync(file, whole.subarray(0, cut))
      const again = await start({ data: file })
      const phones = (await listContacts(again)).map((contact: { phone: string }) => contact.phone)
      expect(phones, `cut at ${cut}`).toContain('+14155550171')
      expect(phones, `cut at ${cut}`).not.toContain('+14155550172')
      if (cut > lastLineStart)
        expect(errors).toHaveBeenLastCalledWith(expect.stringMatching(/cut short \(a crash\); dropped/))
      // The torn bytes are gone: the next write is a whole line after the last whole one.
      const next = await (await createContact(again, '+14155550173')).json()
      await stop(again)
      const third = await start({ data: file })
      const after = (await listContacts(third)).map((contact: { id: string }) => contact.id)
      expect(after).toEqual(expect.arrayContaining([kept.data.id, next.data.id]))
      await stop(third)
    }
    errors.mockRestore()
  })

  it('loads a data file of version 3 (one document), and writes it over as a log', async () => {
    const file = join(folder(), 'sandbox.json')
    const server = await start({ data: file, now: NOW })
    const created = await (await createContact(server, '+14155550177')).json()
    const header = JSON.parse(linesOf(file)[0]!)
    const changes = server.sandbox.changes()
    await stop(server)
    // Version 3 wrote the whole world as one document, pretty or not.
    writeFileSync(file, JSON.stringify({ ...header, version: 3, changes, sessions: [] }, null, 2))

    const again = await start({ data: file })
    const contact = await (await fetch(`${again.url}/v1/contacts/${created.data.id}`, { headers: AUTH })).json()
    expect(contact.data).toEqual(created.data)
    expect(JSON.parse(linesOf(file)[0]!)).toMatchObject({ version: 4, changes: { writes: 1 } })
  })

  it('refuses a version 3 file (pretty, over many lines) of another world and leaves every line of it', async () => {
    const file = join(folder(), 'sandbox.json')
    const server = await start({ data: file, now: NOW })
    await createContact(server, '+14155550177')
    const header = JSON.parse(linesOf(file)[0]!)
    const changes = server.sandbox.changes()
    await stop(server)
    const before = JSON.stringify({ ...header, version: 3, changes, sessions: [] }, null, 2)
    writeFileSync(file, before)
    const error = await startServer({ port: 0, quiet: true, data: file, seed: 2 }).catch((caught) => caught)
    expect(error).toBeInstanceOf(DataFileError)
    expect(error.message).toMatch(/seed/)
    expect(readFileSync(file, 'utf8')).toBe(before)
  })

  it('compacts at start-up a log grown well past its header into one header, the world the same', async () => {
    const file = join(folder(), 'sandbox.log')
    const server = await start({ data: file, now: NOW })
    for (let i = 0; i < 60; i++) await server.sandbox.addCall({ status: 'completed' })
    const before = await listContacts(server)
    await stop(server)
    expect(linesOf(file).length).toBeGreaterThan(60)

    const again = await start({ data: file })
    expect(linesOf(file)).toHaveLength(1)
    expect(await listContacts(again)).toEqual(before)
    expect(again.sandbox.writeCount).toBe(60)
  })

  it('refuses a second server on the same file, naming the process that holds it', async () => {
    const file = join(folder(), 'sandbox.log')
    await start({ data: file, now: NOW })
    const error = await startServer({ port: 0, quiet: true, data: file }).catch((caught) => caught)
    expect(error).toBeInstanceOf(DataFileError)
    expect(error.message).toMatch(new RegExp(`in use by another call-sandbox \\(process ${process.pid}\\)`))
  })

  it.each([
    ['a file whose header is cut short', (text: string) => text.slice(0, 40), /cannot be read as JSON/],
    ['JSON that is no data file', () => '{"calls": []}', /is not a call-sandbox data file/],
    ['a damaged data file', (text: string) => text.replace(/"writes":\d+/, '"writes":"one"'), /damaged/],
    [
      'a line before the last that is no entry',
      (text: string) => text.replace('\n', '\n{"nope":1}\n'),
      /line 2 is no entry/,
    ],
    ['a record that does not fit', (text: string) => text.replace('+14155550177', 'not-a-phone'), /does not fit/],
    [
      'a call without its message times',
      (text: string) => text.replace(/"message_times":\[[^\]]*\]/, '"message_times":[]'),
      /message_times/,
    ],
    [
      'the same contact twice',
      (text: string) => {
        const [header, contact, ...rest] = text.split('\n')
        return [header, contact, contact, ...rest].join('\n')
      },
      /exists already/,
    ],
  ])('refuses %s with a clear error and leaves it as it was', async (_name, damage, message) => {
    const file = join(folder(), 'sandbox.log')
    const server = await start({ data: file, now: NOW })
    await createContact(server, '+14155550177')
    await server.sandbox.addCall({ status: 'completed' })
    await stop(server)
    const damaged = damage(readFileSync(file, 'utf8'))
    writeFileSync(file, damaged)
    const error = await startServer({ port: 0, quiet: true, data: file }).catch((caught) => caught)
    expect(error).toBeInstanceOf(DataFileError)
    expect(error.message).toMatch(message)
    expect(readFileSync(file, 'utf8')).toBe(damaged)
    expect(existsSync(`${file}.lock`)).toBe(false)
  })

  it.each([
    ['another seed', { seed: 2 }, /seed/],
    ['another now', { now: '2026-01-01T00:00:00Z' }, /seeded at/],
    ['another size', { calls: 50 }, /organizations or sizes/],
  ])('refuses the file of a world with %s and leaves it as it was', async (_name, options, message) => {
    const file = join(folder(), 'sandbox.json')
    const server = await start({ data: file, now: NOW })
    await createContact(server, '+14155550177')
    await stop(server)
    const before = readFileSync(file, 'utf8')
    const error = await startServer({ port: 0, quiet: true, data: file, ...options }).catch((caught) => caught)
    expect(error).toBeInstanceOf(DataFileError)
    expect(error.message).toMatch(message)
    expect(readFileSync(file, 'utf8')).toBe(before)
  })
})

describe('--data FILE under faults, with the call-sandbox program', () => {
  const folder = () => tempFolder('data')
  afterEach(() => killChildren())

  async function post(url: string, phone: string) {
    const response = await fetch(`${url}/v1/contacts`, {
      method: 'POST',
      headers: { ...AUTH, 'Content-Type': 'application/json' },
      body: JSON.stringify({ phone }),
    })
    return { status: response.status, headers: response.headers, body: await response.json() }
  }

  it('loses no acknowledged write when killed with SIGKILL during writes, and leaves nothing beside the file', async () => {
    const dir = folder()
    const file = join(dir, 'sandbox.log')
    const cli = runCli(['--port', '0', '--now', NOW, '--data', file, '--quiet'])
    const { url } = await listening(cli)
    const acknowledged: string[] = []
    // Four clients writing at once; the kill comes while writes are on their way.
    const writers = [0, 1, 2, 3].map(async (writer) => {
      for (let i = 0; ; i++) {
        const phone = `+1415${writer}${String(i).padStart(6, '0')}`
        const answer = await post(url, phone).catch(() => undefined)
        if (!answer) return
        if (answer.status === 201) acknowledged.push(answer.body.data.id)
      }
    })
    await vi.waitFor(() => expect(acknowledged.length).toBeGreaterThan(10), { timeout: 10_000 })
    cli.child.kill('SIGKILL')
    await Promise.all(writers)
    await cli.exit()
    expect(acknowledged.length).toBeGreaterThan(10)

    const again = await start({ data: file })
    const ids = (await listAll(again)).map(({ id }: { id: string }) => id)
    expect(ids).toEqual(expect.arrayContaining(acknowledged))
    await stop(again)
    expect(readdirSync(dir)).toEqual(['sandbox.log'])
  })

  it('answers 503 storage_unavailable when the disk refuses a write, keeps nothing of it, and takes the next once it can', async () => {
    const file = join(folder(), 'sandbox.log')
    const cli = runCli(['--port', '0', '--now', NOW, '--data', file, '--quiet'])
    const { url } = await listening(cli)
    const kept = await post(url, '+14155550301')
    expect(kept.status).toBe(201)

    // The file may grow no more: what a full disk does to an append (EFBIG, as ENOSPC).
    execFileSync('prlimit', ['--pid', String(cli.child.pid), `--fsize=${statSync(file).size}:unlimited`])
    const refused = await post(url, '+14155550302')
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect(refused.body.error).toMatchObject({ type: 'api_error', code: 'storage_unavailable' })
    expect(refused.body.error.message).toMatch(/did not take the write \(EFBIG\)/)
    const health = await (await fetch(`${url}/_sandbox/health`)).json()
    expect(health.data).toMatchObject({ status: 'degraded', store: { kind: 'file', state: 'unavailable' } })
    const phones = (await (await fetch(`${url}/v1/contacts?limit=100`, { headers: AUTH })).json()).data.map(
      ({ phone }: { phone: string }) => phone,
    )
    expect(phones).not.toContain('+14155550302')
    const clock = await fetch(`${url}/_sandbox/clock`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"advance_seconds":60}',
    })
    expect(clock.status).toBe(503)
    expect((await (await fetch(`${url}/_sandbox/clock`)).json()).data.now).toBe(NOW)

    execFileSync('prlimit', ['--pid', String(cli.child.pid), '--fsize=unlimited:unlimited'])
    const retried = await post(url, '+14155550302')
    expect(retried.status).toBe(201)
    expect((await (await fetch(`${url}/_sandbox/health`)).json()).data).toMatchObject({ status: 'ok' })
    cli.child.kill('SIGTERM')
    await cli.exit()

    const again = await start({ data: file })
    const after = (await listAll(again)).map(({ id }: { id: string }) => id)
    expect(after).toEqual(expect.arrayContaining([kept.body.data.id, retried.body.data.id]))
    expect(again.sandbox.writeCount).toBe(2)
  })

  it('refuses a second program on the same file, and says which process has it', async () => {
    const file = join(folder(), 'sandbox.log')
    const first = runCli(['--port', '0', '--now', NOW, '--data', file, '--quiet'])
    await listening(first)
    const second = runCli(['--port', '0', '--now', NOW, '--data', file, '--quiet'])
    const { code } = await second.exit()
    expect(code).toBe(1)
    expect(second.stderr()).toMatch(
      new RegExp(`${file} is in use by another call-sandbox \\(process ${first.child.pid}\\)`),
    )
  })
})

/** Every contact of the first key's organization, walking the cursors. */
async function listAll(server: RunningServer): Promise<Array<{ id: string; phone: string }>> {
  return (await pagesOf(server.url, '/v1/contacts?limit=100')).flatMap((page) => page.body.data)
}
