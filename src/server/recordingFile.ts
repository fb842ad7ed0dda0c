import { existsSync, readFileSync } from 'node:fs'
import { z } from 'zod'
import type { UpstreamProxy } from '../proxy/UpstreamProxy.js'
import { Recording, RECORDING_FORMAT } from '../proxy/recording.js'
import type { SandboxOptions } from '../sandbox/options.js'
import { DATA_FILE_FORMAT } from './dataFile/format.js'
import { writeAtomically } from './writeAtomically.js'

/*
 * `--record FILE` keeps what the upstream answered in proxy mode;
 * `--world FILE` starts a sandbox from it. A recording holds the upstream's
 * records and its organizations with a stand-in key for each key that
 * recorded: no key, no header, no cookie.
 */

/** A recording that cannot be used or written: the start stops, and the file is left as it is. */
export class RecordingFileError extends Error {}

/** How often, at most, a recording is written while the upstream answers: each write is the whole file. */
const WRITE_EVERY_MS = 1_000

/**
 * A recording's content, checked as a file: its format and the shape of
 * its organizations (the records are checked by the sandbox that starts from it).
 *
 * @example
 * const recording = readRecordingFile('./recorded.json')
 */
export function readRecordingFile(path: string): Recording {
  const keep = 'It was left as it is.'
  if (!existsSync(path)) throw new RecordingFileError(`${path} does not exist: --world takes a file --record wrote.`)
  let json: unknown
  try {
    json = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new RecordingFileError(
      `${path} cannot be read as JSON (${(error as Error).message}): it is damaged, or no recording. ${keep}`,
    )
  }
  const format = (json as { format?: unknown })?.format
  if (format === DATA_FILE_FORMAT)
    throw new RecordingFileError(`${path} is a data file (--data), not a recording: start with --data ${path}.`)
  if (format !== RECORDING_FORMAT)
    throw new RecordingFileError(`${path} is not a call-sandbox recording (a file --proxy … --record wrote). ${keep}`)
  const parsed = Recording.safeParse(json)
  if (!parsed.success)
    throw new RecordingFileError(`${path} is a damaged recording:\n${z.prettifyError(parsed.error)}\n${keep}`)
  if (parsed.data.organizations.length === 0)
    throw new RecordingFileError(`${path} recorded nothing yet: no answer of the upstream came through the proxy.`)
  return parsed.data
}

/**
 * The options that start a sandbox from a recording: its organizations and
 * their stand-in keys, its records, and its instant (the clock stands there
 * unless `now` says otherwise).
 *
 * @example
 * createSandbox({ ...worldOptionsOf(readRecordingFile(path)) })
 */
export function worldOptionsOf(recording: Recording): Pick<SandboxOptions, 'organizations' | 'records' | 'now'> {
  return { organizations: recording.organizations, records: recording.records, now: recording.recorded_at }
}

/** The writing of a recording while the server runs. */
export interface RecordingWriter {
  /** Writes what is pending now (the server closes). */
  flush(): void
}

/**
 * Writes the proxy's recording to `path`: now (so that a path that cannot
 * be written stops the start), then at most once a second while the
 * upstream answers, and on `flush`. A file that exists already is refused:
 * a recording is not continued, as the keys that made it are not known again.
 */
export function startRecording(path: string, proxy: UpstreamProxy): RecordingWriter {
  if (existsSync(path))
    throw new RecordingFileError(
      `${path} exists already: --record starts a new recording. Move it away, or name another file.`,
    )
  const write = () => {
    pending = false
    try {
      writeAtomically(path, JSON.stringify(proxy.recording()))
    } catch (error) {
      console.error(`[call-sandbox] could not write the recording ${path}: ${(error as Error).message}`)
    }
  }
  let pending = false
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    writeAtomically(path, JSON.stringify(proxy.recording()))
  } catch (error) {
    throw new RecordingFileError(`cannot write the recording ${path}: ${(error as Error).message}`)
  }
  proxy.recorder!.onChange(() => {
    pending = true
    timer ??= setTimeout(() => {
      timer = undefined
      write()
    }, WRITE_EVERY_MS).unref()
  })
  return {
    flush: () => {
      clearTimeout(timer)
      timer = undefined
      if (pending) write()
    },
  }
}
