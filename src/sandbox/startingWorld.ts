import { LruMap } from '../data/LruMap.js'
import { KINDS, type WorldRecords } from '../schemas/stored.js'
import type { OrganizationFixture } from '../seed/fixtures.js'
import { seedWorldInSlices } from '../seed/seedWorld.js'

/**
 * The worlds seeded last (or being seeded), by seed, instant and organizations: sessions of one server share theirs.
 * At most four, and 200,000 records in all (the default world has about 700; one of --calls 100000 is kept alone):
 * a database holds its own copy of each record, so a world kept here is kept twice.
 */
const seeds = new LruMap<string, Promise<WorldRecords>>(4, 200_000)

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
  const kept = seeds.get(key)
  if (kept) return kept
  const world = seedWorldInSlices({ seed, now, organizations })
  seeds.set(key, world)
  world.then(
    (records) =>
      seeds.weigh(
        key,
        world,
        KINDS.reduce((sum, kind) => sum + records[kind].length, 0),
      ),
    // A seeding that failed is not kept: the next world of that seed tries again.
    () => seeds.delete(key, world),
  )
  return world
}
