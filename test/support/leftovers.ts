import { randomUUID } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/*
 * A check at the end of a run (a vitest globalSetup): no temp folder or file
 * of a test outlives the run, and no process a test started does either.
 * Temp entries are the tests' own by their `call-sandbox-` prefix; processes
 * by a marker in their environment, which every process the run starts
 * inherits (Linux's /proc shows it; elsewhere only temp entries are checked).
 */

const MARKER = 'CALL_SANDBOX_TEST_RUN'
const PREFIX = 'call-sandbox-'

const tempEntries = () => new Set(readdirSync(tmpdir()).filter((name) => name.startsWith(PREFIX)))

/** Processes other than this one whose environment carries the run's marker. */
function markedProcesses(run: string): string[] {
  if (!existsSync('/proc')) return []
  const found: string[] = []
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)) {
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`${MARKER}=${run}`)) continue
      found.push(`${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ').trim()}`)
    } catch {
      // Ended while being read, or another user's: not ours.
    }
  }
  return found
}

export default function setup(): () => Promise<void> {
  const run = randomUUID()
  process.env[MARKER] = run
  const before = tempEntries()
  return async () => {
    // A process killed at the end of its test may take a moment to go.
    let processes = markedProcesses(run)
    for (let wait = 0; processes.length > 0 && wait < 20; wait++) {
      await new Promise((resolve) => setTimeout(resolve, 250))
      processes = markedProcesses(run)
    }
    const files = [...tempEntries()].filter((name) => !before.has(name)).map((name) => join(tmpdir(), name))
    if (files.length > 0 || processes.length > 0) {
      // @note vitest reports an error thrown here but still exits 0: the exit code is set as well.
      process.exitCode = 1
      throw new Error(
        `The run left behind what its tests made:${files.map((file) => `\n  temp: ${file}`).join('')}${processes.map((line) => `\n  process: ${line}`).join('')}\nRemove each in the test that makes it (test/support/tempFolder.ts for folders).`,
      )
    }
  }
}
