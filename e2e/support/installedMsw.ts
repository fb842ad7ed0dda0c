import { readFileSync } from 'node:fs'
import { join } from 'node:path'

export interface InstalledMsw {
  version: string
  /** The checksum msw's client expects of the worker script, and its worker script has. */
  checksum: string
}

/**
 * The msw a project's bundles take in (the example's vite config dedupes msw
 * to the project's own): its version, checked to be of the given major, and
 * its checksum, checked to be that of the worker script in its sandbox-worker folder.
 *
 * @example
 * const { version, checksum } = installedMsw('examples/calls-inbox', 2)
 */
export function installedMsw(project: string, major: number): InstalledMsw {
  const { version } = JSON.parse(readFileSync(join(project, 'node_modules/msw/package.json'), 'utf8'))
  if (Number(version.split('.')[0]) !== major) throw new Error(`${project} has msw ${version}, not msw ${major}.`)
  const checksum = workerChecksum(join(project, 'node_modules/msw/lib/mockServiceWorker.js'))
  const published = workerChecksum(join(project, 'sandbox-worker/mockServiceWorker.js'))
  if (published !== checksum) {
    throw new Error(
      `${project}/sandbox-worker/mockServiceWorker.js is not the worker of its msw ${version} (checksum ${published}, not ${checksum}): run \`npx msw init sandbox-worker\` there.`,
    )
  }
  return { version, checksum }
}

function workerChecksum(file: string): string {
  const match = /const INTEGRITY_CHECKSUM = '(\w+)'/.exec(readFileSync(file, 'utf8'))
  if (!match) throw new Error(`${file} names no INTEGRITY_CHECKSUM: is it msw's worker script?`)
  return match[1]!
}
