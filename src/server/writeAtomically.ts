import { randomBytes } from 'node:crypto'
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'

/**
 * Writes a file atomically: a temporary file beside it, flushed to disk,
 * then renamed over it, so that a crash leaves the old file or the new one,
 * never half of one.
 *
 * @example
 * writeAtomically('./sandbox-data.json', JSON.stringify(content))
 */
export function writeAtomically(path: string, content: string | NodeJS.ArrayBufferView): void {
  // The pid alone is not unique where processes of two containers share a folder.
  const temporary = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`
  try {
    const file = openSync(temporary, 'wx')
    try {
      writeFileSync(file, content)
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

/** Makes a rename in a folder durable; some file systems do not allow it, and lose nothing but that. */
export function syncDirectory(directory: string): void {
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
