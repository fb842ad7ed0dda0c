/**
 * Fault rules in a fleet: servers over one Redis store share each session's rules. A rule added on one server is
 * applied by the others, its counts are the store's (`times: 3` fails three requests in all, however many servers
 * answer them at once), and a reset on one server removes it from all.
 */
import { describe, expect, it } from 'vitest'
import { mixedHash } from '../../src/sandbox/FaultRules.js'
import { MIXED_HASH } from '../../src/server/redisDraw.js'
import { AUTH, control, get, server, storeOf, TOPOLOGIES } from './fleet.js'

const statusOf = async (url: string, path: string) => (await fetch(`${url}${path}`, { headers: AUTH })).status

describe.each(TOPOLOGIES)('fault rules over $name', (topology) => {
  const store = storeOf(topology)
  const serve = () => server(store.url)

  it('applies a rule added on one server on the other, and counts times: 3 exactly across both at once', async () => {
    const [a, b] = [await serve(), await serve()]
    for (const root of ['', '/sessions/ci-faults']) {
      const added = await control(a.url, `${root}/_sandbox/faults`, {
        path: '/v1/calls',
        status: 503,
        times: 3,
        after: 2,
      })
      expect(added.status, root || 'the bare root').toBe(201)
      expect((await get(b.url, `${root}/_sandbox/faults`)).body.data).toEqual([added.body.data])

      // Forty requests at once, half to each server: two let through, then exactly three failed.
      const statuses = await Promise.all(
        Array.from({ length: 40 }, (_, i) => statusOf(i % 2 === 0 ? a.url : b.url, `${root}/v1/calls?limit=1`)),
      )
      expect(statuses.filter((status) => status === 503)).toHaveLength(3)
      expect(statuses.filter((status) => status === 200)).toHaveLength(37)
      const [listed] = (await get(a.url, `${root}/_sandbox/faults`)).body.data
      expect(listed).toMatchObject({ id: added.body.data.id, hits: 3, remaining: 0 })
    }
  })

  it('removes a rule from every server, and a reset on one clears them on all and starts the ids over', async () => {
    const [a, b] = [await serve(), await serve()]
    const first = (await control(a.url, '/_sandbox/faults', { path: '/v1/me', status: 500, times: null })).body.data
    expect(await statusOf(b.url, '/v1/me')).toBe(500)
    const removed = await fetch(`${b.url}/_sandbox/faults/${first.id}`, { method: 'DELETE' })
    expect(removed.status).toBe(200)
    expect(await statusOf(a.url, '/v1/me')).toBe(200)

    await control(b.url, '/_sandbox/faults', { path: '/v1/me', error: 'network', times: null })
    await expect(fetch(`${a.url}/v1/me`, { headers: AUTH })).rejects.toThrow(TypeError)
    await control(a.url, '/_sandbox/reset', {})
    expect((await get(b.url, '/_sandbox/faults')).body.data).toEqual([])
    expect(await statusOf(b.url, '/v1/me')).toBe(200)
    const again = await control(b.url, '/_sandbox/faults', { path: '/v1/me', status: 500 })
    expect(again.body.data.id).toBe('flt_1')
  })

  it('draws a probability from the store, so the same run meets the same faults after a reset', async () => {
    const [a, b] = [await serve(), await serve()]
    const run = async () => {
      await control(a.url, '/_sandbox/faults', { path: '/v1/me', status: 500, times: null, probability: 0.5 })
      const statuses: number[] = []
      for (let i = 0; i < 30; i++) statuses.push(await statusOf(i % 2 === 0 ? a.url : b.url, '/v1/me'))
      return statuses
    }
    const first = await run()
    expect(new Set(first)).toEqual(new Set([200, 500]))
    await control(b.url, '/_sandbox/reset', {})
    expect(await run()).toEqual(first)
  })

  it.each([0.1, 0.5, 0.9])(
    'meets, at probability %s, the faults a server in memory meets under the same seed',
    async (probability) => {
      const run = async (urls: string[]) => {
        await control(urls[0]!, '/_sandbox/faults', { path: '/v1/me', status: 500, times: null, probability })
        const statuses: number[] = []
        for (let i = 0; i < 200; i++) statuses.push(await statusOf(urls[i % urls.length]!, '/v1/me'))
        return statuses
      }
      const inMemory = await server(store.url, { store: undefined })
      const [a, b] = [await serve(), await serve()]
      const fleet = await run([a.url, b.url])
      expect(new Set(fleet)).toEqual(new Set([200, 500]))
      expect(fleet).toEqual(await run([inMemory.url]))
    },
  )

  it('hashes in Lua to the very numbers JS makes, for seeds, rule ids and counts of every size', async () => {
    const texts = [0, 1, 42, 2 ** 31, 2 ** 32 + 7, Number.MAX_SAFE_INTEGER].flatMap((seed) =>
      [1, 9, 100].flatMap((rule) => Array.from({ length: 200 }, (_, i) => `${seed} flt_${rule} ${i * 7919 + 1}`)),
    )
    const script = `${MIXED_HASH}\nlocal hashes = {}\nfor i = 1, #ARGV do hashes[i] = mixed_hash(ARGV[i]) end\nreturn hashes`
    const hashes = (await store.send('any', 'EVAL', script, '0', ...texts)) as number[]
    expect(hashes.map(Number)).toEqual(texts.map(mixedHash))
  })
})
