import type { Sandbox } from '../../src/sandbox/Sandbox.js'
import type { CallEnding } from '../../src/schemas/stored.js'

/** How a live call added after the seed ends, as the sandbox's changes (and its data file) keep it. */
export function endingOf(sandbox: Sandbox, callId: string): CallEnding {
  const inserted = sandbox.changes().inserted.find(({ kind, record }) => kind === 'calls' && record.id === callId)
  const ending = inserted?.kind === 'calls' ? inserted.record.ending : undefined
  if (!ending) throw new Error(`The call ${callId} was not added live since the seed.`)
  return ending
}

/** How many calls added since the seed were told with an ending (were live). */
export function addedEndings(sandbox: Sandbox): number {
  return sandbox
    .changes()
    .inserted.filter((inserted) => inserted.kind === 'calls' && inserted.record.ending !== undefined).length
}
