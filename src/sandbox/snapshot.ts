import type { Snapshot, SeedIdentity } from '../schemas/snapshot.js'
import { type SandboxOptions, seedOfOptions } from './options.js'
import type { Sandbox } from './Sandbox.js'

export type { Snapshot, SeedIdentity }

/**
 * The seed a sandbox's world was made from: a snapshot fits only a sandbox seeded the same.
 *
 * @example
 * seedOf(sandbox).seeded_at // '2026-11-20T12:00:00.000Z'
 */
export function seedOf(sandbox: Sandbox): SeedIdentity {
  return seedOfOptions(sandbox.options)
}

/**
 * A sandbox as it stands: its world, its clock and its writes.
 *
 * @example
 * const saved = snapshotOf(sandbox)
 */
export function snapshotOf(sandbox: Sandbox): Snapshot {
  return {
    ...seedOf(sandbox),
    clock_offset_ms: sandbox.clockOffset(),
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
  world: Pick<SeedIdentity, 'seed' | 'seeded_at' | 'clock' | 'scenario'>,
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
export async function restoreSnapshot(sandbox: Sandbox, snapshot: Omit<Snapshot, keyof SeedIdentity>): Promise<void> {
  await sandbox.restore(snapshot.changes)
  if (snapshot.clock_offset_ms !== 0) sandbox.setClockOffset(snapshot.clock_offset_ms)
}
