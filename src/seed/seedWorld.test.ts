import { expect, it } from 'vitest'
import { defaultOrganizations } from './fixtures.js'
import { seedWorld, seedWorldInSlices } from './seedWorld.js'
import { SLICE_SIZE } from './slices.js'
import { countTurns } from '../../test/support/turns.js'

it('seeds in slices the very records it seeds at once, the event loop running between slices', async () => {
  const slices = 2
  const options = {
    seed: 5,
    now: Date.parse('2026-11-20T12:00:00Z'),
    organizations: [{ ...defaultOrganizations[0]!, calls: slices * SLICE_SIZE + 7 }, defaultOrganizations[1]!],
  }
  const turns = countTurns()
  const sliced = await seedWorldInSlices(options)
  const counted = turns.stop()
  expect(sliced).toEqual(seedWorld(options))
  // A turn every slice of the calls drawn, and every slice of them told.
  expect(counted).toBeGreaterThanOrEqual(2 * slices)
})
