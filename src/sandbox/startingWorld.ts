import type { WorldRecords } from '../schemas/stored.js'
import type { OrganizationFixture } from '../world/fixtures.js'
import { seedWorldInSlices } from '../world/seedWorld.js'

/** The worlds seeded last (or being seeded), by seed, instant and organizations: sessions of one server share theirs. */
const seeds = new Map<string, Promise<WorldRecords>>()
const SEEDS_KEPT = 4

/**
 * The records a world starts from: those given, or its seed's.
 *
 * @example
 * await db.load(await startingWorld(undefined, 1, Date.parse('2026-11-20T12:00:00Z'), organizations))
 */
export function startingWorld(
  records: WorldRecords | undefined,
  seed: number,
  now: number,
  organizations: readonly OrganizationFixture[],
): Promise<WorldRecords> {
  return records ? Promise.resolve(records) : seededWorld(seed, now, organizations)
}

/**
 * The records a seed makes, generated once for the same seed, instant and
 * organizations (two sessions seeded alike at once wait for the same seeding).
 *
 * @note Safe to share: a database copies each record it loads, and never
 * changes what it was given (a call's message times and ending are only read).
 */
function seededWorld(seed: number, now: number, organizations: readonly OrganizationFixture[]): Promise<WorldRecords> {
  const key = JSON.stringify([seed, now, organizations])
  let world = seeds.get(key)
  if (world) {
    seeds.delete(key)
  } else {
    world = seedWorldInSlices({ seed, now, organizations })
    // A seeding that failed is not kept: the next world of that seed tries again.
    world.catch(() => seeds.get(key) === world && seeds.delete(key))
    if (seeds.size === SEEDS_KEPT) seeds.delete(seeds.keys().next().value!)
  }
  seeds.set(key, world)
  return world
}
