import type { RequestHandler } from 'msw'
import type { ProxyOptions } from '../proxy/proxyOptions.js'
import { UpstreamProxy } from '../proxy/UpstreamProxy.js'
import type { SandboxOptions } from '../sandbox/options.js'
import { Sandbox } from '../sandbox/Sandbox.js'
import { type SessionLimits, Sessions } from '../sessions/Sessions.js'
import { createHandlers } from './createHandlers.js'

/** What `createSandbox` takes: a world's options, and how many sessions it keeps, in memory and in all, and how long. */
export interface CreateSandboxOptions extends SandboxOptions, SessionLimits {
  /**
   * Proxy mode: the bare root's `/v1/` requests go to this upstream (a real
   * service's base URL) and its answers come back held to the contract; the
   * control plane, the document and the sessions stay the sandbox's own.
   */
  proxy?: string | ProxyOptions
}

/** A sandbox, its sessions, and the MSW handlers that answer over them: what `createSandbox` makes. */
export type SandboxWithHandlers = Sandbox & {
  /** The MSW request handlers: give them to `setupServer`, `setupWorker` or the HTTP middleware. */
  readonly handlers: RequestHandler[]
  /** The named sessions beside this, the default one: each a world of its own at `/sessions/{name}/`. */
  readonly sessions: Sessions
  /** In proxy mode, the proxy in front of the API: its drift report, its recording. */
  readonly proxy?: UpstreamProxy
}

/**
 * Creates a sandbox from options (see {@link SandboxOptions}), with the MSW
 * handlers that answer over it and over its sessions.
 *
 * @example
 * const sandbox = createSandbox({ seed: 7, now: '2026-11-20T12:00:00Z', calls: 2_000 })
 * const server = setupServer(...sandbox.handlers)
 * const checked = createSandbox({ proxy: 'https://api.example.com' }) // the real service, held to the contract
 */
export function createSandbox({
  maxSessions,
  sessionLimit,
  sessionTtl,
  proxy: proxyOptions,
  ...options
}: CreateSandboxOptions = {}): SandboxWithHandlers {
  const proxy = proxyOptions === undefined ? undefined : new UpstreamProxy(proxyOptions)
  const sandbox = new Sandbox(options)
  const sessions = new Sessions(sandbox, options, { maxSessions, sessionLimit, sessionTtl })
  return Object.assign(sandbox, { sessions, proxy, handlers: createHandlers(sandbox, sessions, proxy) })
}
