import { setupServer, type SetupServer } from 'msw/node'
import { createSandbox, type CreateSandboxOptions, type SandboxWithHandlers } from '../handlers/createSandbox.js'

export * from '../index.js'

/**
 * A sandbox wired into MSW's `setupServer`, for vitest or jest: the test's
 * own `fetch` (or axios, or any Node HTTP client) reaches the sandbox in
 * process.
 *
 * @example
 * const { server, sandbox } = setupSandboxServer({ now: '2026-11-20T12:00:00Z' })
 * beforeAll(() => server.listen({ onUnhandledRequest: 'error' })) // msw 3: { onUnhandledFrame: 'error' }
 * beforeEach(() => sandbox.reset())
 * afterAll(() => server.close())
 */
export function setupSandboxServer(options?: CreateSandboxOptions): {
  server: SetupServer
  sandbox: SandboxWithHandlers
} {
  const sandbox = createSandbox(options)
  return { server: setupServer(...sandbox.handlers), sandbox }
}
