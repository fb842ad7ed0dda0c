import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { z } from 'zod'
import { KINDS } from '../schemas/stored.js'
import type { ResolvedOptions } from '../sandbox/options.js'
import type { Sandbox, SandboxChanges } from '../sandbox/Sandbox.js'
import { ScenarioName } from '../schemas/index.js'
import { iso } from '../world/iso.js'
import { hash32 } from '../world/random.js'

/**
 * `--data FILE`: what a sandbox's writes changed, kept on disk so that a
 * restart shows them again. The file names the world it belongs to (seed,
 * seed instant, organizations), and a file of another world, or one that is
 * not a data file at all, stops the start and is never overwritten.
 */

const FORMAT = 'call-sandbox data'

const Changes = z.array(z.object({ kind: z.enum(KINDS as ['calls', 'contacts', 'leads', 'appointments']), record: z.looseObject({ id: z.string() }) }))

const DataFileContent = z.object({
  format: z.literal(FORMAT),
  /** Version 1 files (no scenario, no clock offset) are read as the default scenario and an unmoved clock. */
  version: z.union([z.literal(1), z.literal(2)]),
  seed: z.int().nonnegative(),
  seeded_at: z.iso.datetime(),
  clock: z.enum(['fixed', 'running']),
  scenario: ScenarioName.default('default'),
  organizations: z.string(),
  /** How far the clock was set or moved: from the seed instant (a fixed clock) or from the real time (a running one). */
  clock_offset_ms: z.int().default(0),
  changes: z.object({ writes: z.int().nonnegative(), inserted: Changes, changed: Changes }),
})
export type DataFileContent = z.infer<typeof DataFileContent>

/** A data file that cannot be used: the start stops, and the file is left as it was. */
export class DataFileError extends Error {}

/**
 * The content of a data file, or `undefined` when there is none yet.
 *
 * @example
 * const saved = readDataFile('./sandbox-data.json')
 */
export function readDataFile(path: string): DataFileContent | undefined {
  if (!existsSync(path)) return undefined
  const keep = 'It was left as it is: move it away, or name another file with --data.'
  let json: unknown
  try {
    json = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new DataFileError(`${path} cannot be read as JSON (${(error as Error).message}): it is damaged, or no call-sandbox data file. ${keep}`)
  }
  if ((json as { format?: unknown })?.format !== FORMAT) throw new DataFileError(`${path} is not a call-sandbox data file. ${keep}`)
  const parsed = DataFileContent.safeParse(json)
  if (!parsed.success) throw new DataFileError(`${path} is a damaged call-sandbox data file:\n${z.prettifyError(parsed.error)}\n${keep}`)
  return parsed.data
}

/**
 * Seed, seed instant, clock, scenario and organizations a sandbox was made
 * from; a data file fits only a sandbox made from the same.
 *
 * @example
 * worldOf(sandbox).seeded_at // '2026-11-20T12:00:00.000Z'
 */
export function worldOf(sandbox: Sandbox): World {
  const { options } = sandbox
  let world = worlds.get(options)
  if (!world) {
    const { seed, now, fixedClock, scenario, organizations } = options
    world = { seed, seeded_at: iso(now), clock: fixedClock ? 'fixed' : 'running', scenario, organizations: hash32(JSON.stringify(organizations)).toString(36) }
    worlds.set(options, world)
  }
  return world
}

type World = Pick<DataFileContent, 'seed' | 'seeded_at' | 'clock' | 'scenario' | 'organizations'>

/** @note Options change only when a reset swaps the scenario: the world is worked out once per options, not on every write that saves the file. */
const worlds = new WeakMap<ResolvedOptions, World>()

/**
 * Puts a data file's changes into a sandbox made from the file's world, or
 * says what does not fit.
 */
export async function restoreDataFile(sandbox: Sandbox, path: string, saved: DataFileContent): Promise<void> {
  const world = worldOf(sandbox)
  const keep = 'The file was left as it is: start with the same options, or name another file with --data.'
  if (world.seed !== saved.seed) throw new DataFileError(`${path} belongs to seed ${saved.seed}, not ${world.seed}. ${keep}`)
  if (world.seeded_at !== saved.seeded_at) throw new DataFileError(`${path} belongs to a world seeded at ${saved.seeded_at}, not ${world.seeded_at}. ${keep}`)
  if (world.scenario !== saved.scenario) throw new DataFileError(`${path} belongs to the scenario ${saved.scenario}, not ${world.scenario}. ${keep}`)
  if (world.organizations !== saved.organizations) throw new DataFileError(`${path} belongs to other organizations or sizes (--organizations, --calls). ${keep}`)
  try {
    await sandbox.restore(saved.changes as SandboxChanges)
  } catch (error) {
    throw new DataFileError(`${path} does not fit this world: ${(error as Error).message} ${keep}`)
  }
  if (saved.clock_offset_ms !== 0) sandbox.clock.set(clockBase(sandbox) + saved.clock_offset_ms)
}

/** What the clock's offset is measured from: the seed instant for a fixed clock, the real time for a running one. */
function clockBase(sandbox: Sandbox): number {
  return sandbox.options.fixedClock ? sandbox.options.now : Date.now()
}

/**
 * Writes a sandbox's changes to `path` atomically: a temporary file beside
 * it, flushed to disk, then renamed over it, so that a crash leaves the old
 * file or the new one, never half of one.
 */
export function writeDataFile(path: string, sandbox: Sandbox): void {
  const content: DataFileContent = {
    format: FORMAT,
    version: 2,
    ...worldOf(sandbox),
    clock_offset_ms: Math.round(sandbox.clock.now() - clockBase(sandbox)),
    changes: sandbox.changes(),
  }
  const temporary = `${path}.${process.pid}.tmp`
  try {
    const file = openSync(temporary, 'w')
    try {
      writeFileSync(file, JSON.stringify(content))
      fsyncSync(file)
    } finally {
      closeSync(file)
    }
    renameSync(temporary, path)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw error
  }
  syncDirectory(dirname(path))
}

/** Makes the rename itself durable; some file systems do not allow it, and lose nothing but that. */
function syncDirectory(directory: string): void {
  try {
    const handle = openSync(directory, 'r')
    try {
      fsyncSync(handle)
    } finally {
      closeSync(handle)
    }
  } catch {
    // Not supported here: the rename is still atomic.
  }
}
