import type { ScenarioName } from '../schemas/index.js'
import { iso } from '../world/iso.js'
import { hash32 } from '../world/random.js'
import { recordsHash } from './checkedRecords.js'
import type { ResolvedOptions, SandboxOptions } from './options.js'
import type { Sandbox, SandboxChanges } from './Sandbox.js'

/**
 * A world is its seed plus its writes: what a sandbox must be made from to
 * be seeded as another was (seed, seed instant, clock, scenario, a hash of
 * its organizations), and what was written to it since.
 */
export interface WorldOf {
  seed: number
  /** The seed instant, ISO. */
  seeded_at: string
  clock: 'fixed' | 'running'
  scenario: ScenarioName
  /**
   * A hash of the organizations with their sizes (and the records a recorded world starts from): the same text, the
   * same world.
   */
  organizations: string
}

export interface Snapshot extends WorldOf {
  /**
   * How far the clock was set or moved: from the seed instant (a fixed clock) or from the real time (a running one).
   */
  clock_offset_ms: number
  changes: SandboxChanges
}

/**
 * @note Options change only when a reset swaps the scenario: the world is worked out once per options, not on every
 * save.
 */
const worlds = new WeakMap<ResolvedOptions, WorldOf>()

/**
 * The world a sandbox was seeded as: a snapshot fits only a sandbox seeded the same.
 *
 * @example
 * worldOf(sandbox).seeded_at // '2026-11-20T12:00:00.000Z'
 */
export function worldOf(sandbox: Sandbox): WorldOf {
  return worldOfOptions(sandbox.options)
}

/** The world options seed (see `worldOf`). */
export function worldOfOptions(options: ResolvedOptions): WorldOf {
  let world = worlds.get(options)
  if (!world) {
    const { seed, now, fixedClock, scenario, organizations, records } = options
    const hashed = records === undefined ? organizations : [organizations, recordsHash(records)]
    world = {
      seed,
      seeded_at: iso(now),
      clock: fixedClock ? 'fixed' : 'running',
      scenario,
      organizations: hash32(JSON.stringify(hashed)).toString(36),
    }
    worlds.set(options, world)
  }
  return world
}

/**
 * A sandbox as it stands: its world, its clock and its writes.
 *
 * @example
 * const saved = snapshotOf(sandbox)
 */
export function snapshotOf(sandbox: Sandbox): Snapshot {
  return {
    ...worldOf(sandbox),
    clock_offset_ms: Math.round(sandbox.clock.now() - clockBase(sandbox)),
    changes: sandbox.changes(),
  }
}

/**
 * The options that seed a sandbox as a snapshot's was (with `options`
 * for all else: keys, faults, live mode).
 *
 * @example
 * const sandbox = new Sandbox(seedOptionsOf(options, saved))
 */
export function seedOptionsOf(
  options: SandboxOptions,
  world: Pick<WorldOf, 'seed' | 'seeded_at' | 'clock' | 'scenario'>,
): SandboxOptions {
  return { ...options, seed: world.seed, now: world.seeded_at, clock: world.clock, scenario: world.scenario }
}

/**
 * Puts a snapshot's writes and clock into a sandbox seeded from the same
 * world (see `seedOptionsOf`), before anything is written to it; throws
 * what does not fit, and then leaves the sandbox as it was.
 *
 * @example
 * await restoreSnapshot(new Sandbox(seedOptionsOf(options, saved)), saved)
 */
export async function restoreSnapshot(sandbox: Sandbox, snapshot: Omit<Snapshot, keyof WorldOf>): Promise<void> {
  await sandbox.restore(snapshot.changes)
  if (snapshot.clock_offset_ms !== 0) sandbox.clock.set(clockBase(sandbox) + snapshot.clock_offset_ms)
}

/** What the clock's offset is measured from: the seed instant for a fixed clock, the real time for a running one. */
function clockBase(sandbox: Sandbox): number {
  return sandbox.options.fixedClock ? sandbox.options.now : Date.now()
}
