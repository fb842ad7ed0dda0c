// The run-time settings in process as docs/guides/control-plane.md shows them (the block between the markers, word
// for word), then checked.
import { afterAll, describe, expect, it } from 'vitest'
import { createSandbox } from '../../src/index.js'

const sandbox = createSandbox({ now: '2026-11-20T12:00:00Z', errorRate: 0.1 })
// #region snippet
sandbox.settings.update({ rateLimit: '2/min', errorRate: null }) // from the next request on
const inEffect = sandbox.settings.current // { latency: undefined, errorRate: 0, rateLimit: { limit: 2, windowMs: 60_000 } }
const session = await sandbox.sessions.open('ci-3')
session.settings.update({ latency: '100-400' }) // that session only
sandbox.settings.restore() // back to the options it was created with
// #endregion snippet

describe('the run-time settings of the control-plane guide', () => {
  afterAll(() => {
    sandbox.sessions.stop()
    sandbox.stop()
  })

  it('changed the root’s settings, then put them back', () => {
    expect(inEffect).toEqual({ latency: undefined, errorRate: 0, rateLimit: { limit: 2, windowMs: 60_000 } })
    expect(sandbox.settings.current).toEqual({ latency: undefined, errorRate: 0.1, rateLimit: undefined })
  })

  it('changed the session’s latency only', () => {
    expect(session.settings.current).toEqual({ latency: { min: 100, max: 400 }, errorRate: 0.1, rateLimit: undefined })
    expect(sandbox.sessions.info('ci-3')!.settings.changed).toEqual(['latency'])
  })
})
