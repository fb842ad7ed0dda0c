import { setupWorker, type SetupWorker } from 'msw/browser'
import { createSandbox, type CreateSandboxOptions, type SandboxWithHandlers } from '../handlers/createSandbox.js'
import { beyondThisMachineWarning } from './beyondThisMachine.js'

/**
 * A sandbox wired into MSW's `setupWorker`, for a frontend dev server: the
 * app's own `fetch` reaches the sandbox through a service worker, with the
 * same handlers, options and data as in a test run or the standalone server.
 * The app serves msw's `mockServiceWorker.js` (`npx msw init <folder> --save`). Start it in development only: on a
 * page that comes from elsewhere than this machine, and not from Vite's dev server, it warns in the console that
 * made-up data answers there.
 *
 * @example
 * const { worker } = setupSandboxWorker({ seed: 1, now: '2026-11-20T12:00:00Z' })
 * await worker.start({ onUnhandledRequest: 'bypass' }) // msw 3: { onUnhandledFrame: 'bypass' }
 */
export function setupSandboxWorker(options?: CreateSandboxOptions): {
  worker: SetupWorker
  sandbox: SandboxWithHandlers
} {
  const warning = beyondThisMachineWarning(globalThis.location, globalThis.document)
  if (warning !== undefined) console.warn(warning)
  const sandbox = createSandbox(options)
  return { worker: setupWorker(...sandbox.handlers), sandbox }
}
