import type { RequestHandler } from 'msw'
import { Sandbox } from '../sandbox/Sandbox.js'
import type { SandboxOptions } from '../sandbox/options.js'
import { createHandlers } from './createHandlers.js'

/** A sandbox and the MSW handlers that answer the API over it: what `createSandbox` makes. */
export type SandboxWithHandlers = Sandbox & {
  /** The MSW request handlers: give them to `setupServer`, `setupWorker` or the HTTP middleware. */
  readonly handlers: RequestHandler[]
}

/**
 * Creates a sandbox from options (see {@link SandboxOptions}), with the MSW
 * handlers that answer over it.
 *
 * @example
 * const sandbox = createSandbox({ seed: 7, now: '2026-11-20T12:00:00Z', calls: 2_000 })
 * const server = setupServer(...sandbox.handlers)
 */
export function createSandbox(options?: SandboxOptions): SandboxWithHandlers {
  const sandbox = new Sandbox(options)
  return Object.assign(sandbox, { handlers: createHandlers(sandbox) })
}
