import { existsSync, readFileSync } from 'node:fs'
import { z } from 'zod'
import { RECORDING_FORMAT } from '../proxy/recording.js'
import { KINDS } from '../schemas/stored.js'
import type { SandboxWithHandlers } from '../handlers/createSandbox.js'
import { restoreSnapshot, snapshotOf, worldOf, type Snapshot } from '../sandbox/snapshot.js'
import { CreateSessionRequest, ScenarioName } from '../schemas/index.js'
import type { StoredSession } from '../sessions/Sessions.js'
import { writeAtomically } from './writeAtomically.js'

/**
 * `--data FILE`: what a sandbox's writes changed, kept on disk so that a
 * restart shows them again. The file names the world it belongs to (seed,
 * seed instant, organizations), and a file of another world, or one that is
 * not a data file at all, stops the start and is never overwritten.
 */

/** The `format` of a file `--data` writes. */
export const DATA_FILE_FORMAT = 'call-sandbox data'

const Changes = z.array(
  z.object({
    kind: z.enum(KINDS),
    record: z.looseObject({ id: z.string() }),
  }),
)

/** A world as it stood (see `snapshotOf`). */
const SnapshotContent = z.object({
  seed: z.int().nonnegative(),
  seeded_at: z.iso.datetime(),
  clock: z.enum(['fixed', 'running']),
  scenario: ScenarioName.default('default'),
  organizations: z.string(),
  /**
   * How far the clock was set or moved: from the seed instant (a fixed clock) or from the real time (a running one).
   */
  clock_offset_ms: z.int().default(0),
  changes: z.object({ writes: z.int().nonnegative(), inserted: Changes, changed: Changes }),
})

const DataFileContent = z.object({
  format: z.literal(DATA_FILE_FORMAT),
  /**
   * Version 1 files (no scenario, no clock offset) are read as the default scenario and an unmoved clock; versions 1
   * and 2 have no sessions.
   */
  version: z.union([z.literal(1), z.literal(2), z.literal(3)]),
  ...SnapshotContent.shape,
  /** The named sessions that hold more than their seed (see `Sessions.stored`). */
  sessions: z
    .array(
      z.object({
        name: z.string(),
        created_at: z.iso.datetime(),
        options: CreateSessionRequest.omit({ name: true }).nullable(),
        snapshot: SnapshotContent.nullable(),
      }),
    )
    .default([]),
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
    throw new DataFileError(
      `${path} cannot be read as JSON (${(error as Error).message}): it is damaged, or no call-sandbox data file. ${keep}`,
    )
  }
  const format = (json as { format?: unknown })?.format
  if (format === RECORDING_FORMAT)
    throw new DataFileError(
      `${path} is a recording (--record), not a data file: start a sandbox from it with --world ${path}. ${keep}`,
    )
  if (format !== DATA_FILE_FORMAT) throw new DataFileError(`${path} is not a call-sandbox data file. ${keep}`)
  const parsed = DataFileContent.safeParse(json)
  if (!parsed.success)
    throw new DataFileError(`${path} is a damaged call-sandbox data file:\n${z.prettifyError(parsed.error)}\n${keep}`)
  return parsed.data
}

/**
 * Puts a data file's changes into a sandbox made from the file's world, or
 * says what does not fit.
 */
export async function restoreDataFile(
  sandbox: SandboxWithHandlers,
  path: string,
  saved: DataFileContent,
): Promise<void> {
  const world = worldOf(sandbox)
  const keep = 'The file was left as it is: start with the same options, or name another file with --data.'
  if (world.seed !== saved.seed)
    throw new DataFileError(`${path} belongs to seed ${saved.seed}, not ${world.seed}. ${keep}`)
  if (world.seeded_at !== saved.seeded_at)
    throw new DataFileError(`${path} belongs to a world seeded at ${saved.seeded_at}, not ${world.seeded_at}. ${keep}`)
  if (world.scenario !== saved.scenario)
    throw new DataFileError(`${path} belongs to the scenario ${saved.scenario}, not ${world.scenario}. ${keep}`)
  if (world.organizations !== saved.organizations)
    throw new DataFileError(`${path} belongs to other organizations or sizes (--organizations, --calls). ${keep}`)
  try {
    await restoreSnapshot(sandbox, saved as unknown as Snapshot)
    sandbox.sessions.load(saved.sessions as StoredSession[])
  } catch (error) {
    throw new DataFileError(`${path} does not fit this world: ${(error as Error).message} ${keep}`)
  }
}

/**
 * Writes a sandbox's changes to `path` atomically: a temporary file beside
 * it, flushed to disk, then renamed over it, so that a crash leaves the old
 * file or the new one, never half of one.
 */
export function writeDataFile(path: string, sandbox: SandboxWithHandlers): void {
  const content: DataFileContent = {
    format: DATA_FILE_FORMAT,
    version: 3,
    ...snapshotOf(sandbox),
    sessions: sandbox.sessions.stored() as DataFileContent['sessions'],
  }
  writeAtomically(path, JSON.stringify(content))
}
