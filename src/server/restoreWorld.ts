import type { SandboxWithHandlers } from '../handlers/createSandbox.js'
import { restoreSnapshot, snapshotOf, seedOf } from '../sandbox/snapshot.js'
import type { FirstRead, Store } from '../sessions/Store.js'

/**
 * Puts what a store keeps back into a sandbox seeded as its world was (see
 * `Store.seededFrom`), after the store's check that it belongs to this
 * world: the default session's snapshot and log, and every named session,
 * put away until its first request. From then on every write of every
 * session goes to `store`. What does not fit is the store's `unfit` error,
 * and the store is left as it was.
 *
 * @example
 * const read = await restoreWorld(sandbox, store)
 */
export async function restoreWorld(sandbox: SandboxWithHandlers, store: Store): Promise<FirstRead> {
  const read = await store.read(seedOf(sandbox))
  const { world, sessions } = read
  try {
    if (world.snapshot) await restoreSnapshot(sandbox, world.snapshot)
    await sandbox.replay(world.entries)
    sandbox.sessions.load(sessions, store)
  } catch (error) {
    throw store.unfit(`it does not fit this world: ${(error as Error).message}`)
  }
  // A store several servers share: what the others wrote to the default session so far.
  await sandbox.catchUp()
  await store.restored(() => ({ world: snapshotOf(sandbox), sessions: sandbox.sessions.stored() }))
  return read
}
