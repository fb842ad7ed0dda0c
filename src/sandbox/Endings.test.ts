import { describe, expect, it, vi } from 'vitest'
import type { CallEnding } from '../schemas/stored.js'
import { Clock } from './Clock.js'
import { Endings } from './Endings.js'
import type { Records, WriteQueue } from './WriteQueue.js'

const START = Date.parse('2026-11-20T12:00:00.000Z')

/** A live call that ends `ms` after START, and the records it is in: their revision, and how often they were read. */
function liveCall(ms: number) {
  const ending = { call: { ended_at: new Date(START + ms).toISOString() } } as CallEnding
  const records = {
    revision: 1,
    reads: 0,
    *pendingEndings(): Generator<[string, CallEnding]> {
      records.reads++
      yield ['call_1', ending]
    },
    get: () => ({ ended_at: null }),
  }
  const write = vi.fn(async () => undefined)
  const queue = { records: records as unknown as Records, write } as unknown as WriteQueue
  return { records, write, endings: new Endings(queue, new Clock(START)) }
}

describe('Endings.settle', () => {
  it('looks for nothing again before the next ending while the records stay as they are', async () => {
    const { records, write, endings } = liveCall(60_000)
    await endings.settle(START)
    await endings.settle(START + 1_000)
    await endings.settle(START + 59_999)
    expect(records.reads).toBe(1)
    expect(write).not.toHaveBeenCalled()
  })

  it('writes the ending once the clock reaches it, to the millisecond', async () => {
    const { records, write, endings } = liveCall(60_000)
    await endings.settle(START)
    await endings.settle(START + 60_000)
    expect(records.reads).toBe(2)
    expect(write).toHaveBeenCalledTimes(1)
  })

  it('looks again after any write, whatever the clock: a write may bring a sooner ending', async () => {
    const { records, write, endings } = liveCall(60_000)
    await endings.settle(START)
    records.revision = 2
    await endings.settle(START)
    expect(records.reads).toBe(2)
    expect(write).not.toHaveBeenCalled()
  })
})
