/**
 * A fleet loses no acknowledged write, whatever runs at once: seeded
 * histories of writes to one session (clock moves and sets, resets and
 * scenario swaps, settings, fault rules, contacts), sent to two and three
 * servers at once over one Redis node and over a three-primary cluster,
 * each checked against a model (`model.ts`): some serial order of the
 * writes must give every answer and the state every server shows after.
 */
import { describe, expect, it, vi } from 'vitest'
import { listening, runCli } from '../support/cli.js'
import { NOW } from '../support/transports.js'
import { allContacts, control, get, server, storeOf, TOPOLOGIES } from './fleet.js'
import { type Event, generate, type MIXES, NOW_MS, PHONES, run, shown } from './history.js'
import { check, type Observed, START_SETTINGS, type State } from './model.js'

/**
 * Per topology and count of servers: histories of `ROUNDS` rounds of one write per server, of every kind of write from
 * these seeds, and mostly resets and scenario swaps from those.
 */
const HISTORIES: Array<{ seed: number; mix: keyof typeof MIXES }> = [
  ...[1, 2, 3, 4, 5, 6].map((seed) => ({ seed, mix: 'every' as const })),
  ...[1, 2, 3].map((seed) => ({ seed, mix: 'resets' as const })),
]
const ROUNDS = 12
const INITIAL: State = { offset: 0, scenario: 'default', settings: START_SETTINGS, rules: [], made: 0, contacts: {} }

/** What a server shows of the session at `root` (its URL and the session's path). */
async function observe(url: string, root: string): Promise<Observed> {
  const now = (await get(url, `${root}/_sandbox/clock`)).body.data.now as string
  const scenarios = (await get(url, `${root}/_sandbox/scenarios`)).body.data as Array<{
    name: string
    current: boolean
  }>
  const rules = (await get(url, `${root}/_sandbox/faults`)).body.data as Array<{ id: string; path: string }>
  const contacts = (await allContacts(url, root)).filter(({ phone }) => PHONES.includes(phone))
  return {
    offset: Date.parse(now) - NOW_MS,
    scenario: scenarios.find(({ current }) => current)!.name,
    settings: (await get(url, `${root}/_sandbox/settings`)).body.data,
    rules: rules.map(({ id, path }) => ({ id, path })),
    contacts: Object.fromEntries(contacts.map(({ phone, id }) => [phone, id]).sort()),
  }
}

describe.each(TOPOLOGIES)('concurrent writes to one session over $name', (topology) => {
  const store = storeOf(topology)

  /** Runs a history on `servers` and checks it: what is wrong, or undefined. */
  const checked = async (servers: readonly string[], mix: keyof typeof MIXES, seed: number) => {
    const root = `/sessions/history-${servers.length}-${mix}-${seed}`
    expect((await control(servers[0]!, '/_sandbox/sessions', { name: root.split('/')[2] })).status).toBe(201)
    const { made: _, ...initial } = INITIAL
    expect(await observe(servers[0]!, root)).toEqual(initial)
    const events = await run(
      generate(seed, ROUNDS, servers.length, mix),
      servers.map((url) => `${url}${root}`),
    )
    const ends = await Promise.all(servers.map((url) => observe(url, root)))
    const [end] = ends as [Observed]
    const apart = ends.findIndex((shown) => JSON.stringify(shown) !== JSON.stringify(end))
    const why =
      apart >= 0
        ? `servers 0 and ${apart} show different ends: ${JSON.stringify(end)}, ${JSON.stringify(ends[apart])}`
        : check(events, INITIAL, end)
    return why && `${mix} seed ${seed}: ${why}\nend: ${JSON.stringify(end)}\n${shown(events)}`
  }

  it.each([2, 3])(
    '%i servers: some serial order of the acknowledged writes gives every answer and the end',
    async (count) => {
      const servers = await Promise.all(Array.from({ length: count }, () => server(store.url)))
      const failures: string[] = []
      for (const { seed, mix } of HISTORIES) {
        const why = await checked(
          servers.map(({ url }) => url),
          mix,
          seed,
        )
        if (why) failures.push(why)
      }
      expect(failures.join('\n\n')).toBe('')
    },
  )
})

describe('a reset over one Redis node', () => {
  const store = storeOf(TOPOLOGIES[0]!)

  it('removes the fault rules at its place in the log: a rule added once the reset is seen stays', async () => {
    // The resetting server in a process of its own, to stop it between its append and what it does after.
    const resetting = runCli(['--port', '0', '--now', NOW, '--quiet', '--store', store.url])
    const { url } = await listening(resetting)
    const [a, b] = [`${url}/sessions/rules`, `${(await server(store.url)).url}/sessions/rules`]
    expect((await control(url, '/_sandbox/sessions', { name: 'rules' })).status).toBe(201)
    expect((await control(a, '/_sandbox/faults', { path: '/v1/leads/before', status: 503 })).status).toBe(201)
    const head = 'call-sandbox:{rules}:head'
    const generation = Number((await store.send(head, 'HGET', head, 'generation')) ?? 0)
    // `busy` takes a while to seed: the reset's server is stopped while it does, its append made.
    const reset = control(a, '/_sandbox/reset', { scenario: 'busy' })
    await vi.waitFor(
      async () => expect(Number(await store.send(head, 'HGET', head, 'generation'))).toBe(generation + 1),
      {
        timeout: 10_000,
        interval: 1,
      },
    )
    resetting.child.kill('SIGSTOP')
    try {
      const scenarios = (await get(b, '/_sandbox/scenarios')).body.data as Array<{ name: string; current: boolean }>
      expect(scenarios.find(({ current }) => current)?.name).toBe('busy')
      const added = await control(b, '/_sandbox/faults', { path: '/v1/leads/after', status: 503 })
      expect(added).toMatchObject({ status: 201, body: { data: { id: 'flt_1', path: '/v1/leads/after' } } })
    } finally {
      resetting.child.kill('SIGCONT')
    }
    expect((await reset).status).toBe(200)
    for (const root of [a, b]) {
      const rules = (await get(root, '/_sandbox/faults')).body.data as Array<{ id: string; path: string }>
      expect(rules.map(({ id, path }) => ({ id, path }))).toEqual([{ id: 'flt_1', path: '/v1/leads/after' }])
    }
  })
})

describe('the check of a history', () => {
  const initial: State = { offset: 0, scenario: 'default', settings: START_SETTINGS, rules: [], made: 0, contacts: {} }
  const { made: _, ...end } = initial
  const advanced = (server: number, invoked: number, completed: number, now: string): Event => ({
    op: { kind: 'advance', seconds: 60 },
    server,
    invoked,
    completed,
    status: 200,
    body: { data: { now, mode: 'fixed' } },
  })

  it('finds two moves of the clock at once, both answered, that moved it once', () => {
    const lost = [advanced(0, 1, 3, '2026-11-20T12:01:00.000Z'), advanced(1, 2, 4, '2026-11-20T12:02:00.000Z')]
    expect(check(lost, initial, { ...end, offset: 60_000 })).toMatch(/the end differs: offset: 60000/)
    expect(check(lost, initial, { ...end, offset: 120_000 })).toBeUndefined()
    // Both answered +60: no order gives both answers.
    const same = [advanced(0, 1, 3, '2026-11-20T12:01:00.000Z'), advanced(1, 2, 4, '2026-11-20T12:01:00.000Z')]
    expect(check(same, initial, { ...end, offset: 120_000 })).toMatch(/now is "2026-11-20T12:01:00.000Z"/)
  })

  it('keeps to the order in which writes were answered: one answered before another was sent goes first', () => {
    const first = { ...advanced(0, 1, 2, '2026-11-20T12:02:00.000Z'), op: { kind: 'advance', seconds: 120 } as const }
    const second = {
      ...advanced(1, 3, 4, '2026-11-20T12:01:00.000Z'),
      op: { kind: 'set', now: '2026-11-20T12:01:00.000Z' } as const,
    }
    expect(check([first, second], initial, { ...end, offset: 60_000 })).toBeUndefined()
    // Sent after the set was answered, the move cannot come before it.
    const late = { ...first, invoked: 5, completed: 6, body: { data: { now: '2026-11-20T12:02:00.000Z' } } }
    expect(check([second, late], initial, { ...end, offset: 60_000 })).toBeDefined()
  })
})
