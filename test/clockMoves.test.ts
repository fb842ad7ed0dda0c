/**
 * `sandbox.moveClock`, as the control plane moves the clock: listeners hear of a move once, in memory and with a store,
 * and the clock a server shows after a move is the one its store keeps, also when the clock runs.
 */
import { describe, expect, it } from 'vitest'
import { Sandbox } from '../src/sandbox/Sandbox.js'
import type { LogEntry } from '../src/schemas/snapshot.js'
import { NOW } from './support/transports.js'

/** A store of this server alone whose appends take `waitMs` (a data file on a slow disk), and what it kept. */
function slowStore(waitMs: number) {
  const entries: LogEntry[] = []
  return {
    entries,
    log: {
      shared: false as const,
      append: async (entry: LogEntry) => {
        await new Promise((resolve) => setTimeout(resolve, waitMs))
        entries.push(entry)
      },
      health: () => ({ kind: 'file' as const, state: 'ok' as const, error: null }),
    },
  }
}

describe('a move of the clock', () => {
  it('is one change to the listeners, as a clock set in process is, in memory and with a store', async () => {
    for (const store of [undefined, slowStore(0)]) {
      const sandbox = new Sandbox({ now: NOW })
      await sandbox.ready
      if (store) sandbox.keepWritesIn(store.log)
      let changes = 0
      sandbox.onChange(() => changes++)
      await sandbox.moveClock((now) => now + 60_000)
      await sandbox.idle()
      expect(changes, store ? 'with a store' : 'in memory').toBe(1)
      sandbox.clock.set(Date.parse(NOW))
      await sandbox.idle()
      expect(changes, store ? 'with a store' : 'in memory').toBe(2)
      sandbox.stop()
    }
  })

  it('leaves a running clock where its store keeps it, not behind by the time the store took', async () => {
    const store = slowStore(300)
    const sandbox = new Sandbox({ clock: 'running' })
    await sandbox.ready
    sandbox.keepWritesIn(store.log)
    await sandbox.moveClock((now) => now + 3_600_000)
    const [kept] = store.entries as [{ clock_offset_ms: number }]
    // The server's clock and the one a server reading the store puts back (the kept offset from the real time): within a
    // few ms of each other, where the store took 300 ms to keep the move.
    expect(Math.abs(sandbox.clockOffset() - kept.clock_offset_ms)).toBeLessThan(100)
    sandbox.stop()
  })
})
