import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DataFileError } from '../src/server/dataFile.js'
import { startServer, type RunningServer, type ServerOptions } from '../src/server/startServer.js'
import { endingOf } from './support/endings.js'
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
    expect(JSON.parse(readFileSync(file, 'utf8')).clock_offset_ms).toBe(0)
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

  it('empties the file on reset', async () => {
    const file = join(folder(), 'sandbox.json')
    const server = await start({ data: file, now: NOW })
    await createContact(server, '+14155550199')
    expect(JSON.parse(readFileSync(file, 'utf8')).changes.inserted).toHaveLength(1)
    await server.sandbox.reset()
    expect(JSON.parse(readFileSync(file, 'utf8')).changes).toEqual({ writes: 0, inserted: [], changed: [] })
  })

  it('writes through a temporary file and leaves none behind', async () => {
    const dir = folder()
    const server = await start({ data: join(dir, 'sandbox.json'), now: NOW })
    for (let i = 0; i < 5; i++) await createContact(server, `+1415555020${i}`)
    expect(readdirSync(dir)).toEqual(['sandbox.json'])
  })

  it.each([
    ['a truncated data file', (text: string) => text.slice(0, Math.floor(text.length / 2)), /cannot be read as JSON/],
    ['JSON that is no data file', () => '{"calls": []}', /is not a call-sandbox data file/],
    ['a damaged data file', (text: string) => text.replace(/"writes":\d+/, '"writes":"one"'), /damaged/],
    ['a record that does not fit', (text: string) => text.replace('+14155550177', 'not-a-phone'), /does not fit/],
    [
      'a call without its message times',
      (text: string) => text.replace(/"message_times":\[[^\]]*\]/, '"message_times":[]'),
      /message_times/,
    ],
    [
      'the same contact twice',
      (text: string) => {
        const content = JSON.parse(text)
        content.changes.inserted.push(content.changes.inserted[0])
        return JSON.stringify(content)
      },
      /exists already/,
    ],
  ])('refuses %s with a clear error and leaves it as it was', async (_name, damage, message) => {
    const file = join(folder(), 'sandbox.json')
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
