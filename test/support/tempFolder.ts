import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onTestFinished } from 'vitest'

/**
 * A new folder in the system's temp folder, removed when the running test
 * ends, passed or failed. Its name starts with `call-sandbox-`, which the
 * check at the end of the run (`test/support/leftovers.ts`) looks for.
 *
 * @example
 * const file = join(tempFolder('data'), 'sandbox.json')
 */
export function tempFolder(purpose: string): string {
  const folder = mkdtempSync(join(tmpdir(), `call-sandbox-${purpose}-`))
  onTestFinished(() => rmSync(folder, { recursive: true, force: true }))
  return folder
}
