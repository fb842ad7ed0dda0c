/**
 * call-sandbox: a seeded, stateful stand-in for the call-handling API.
 * This entry is environment-agnostic; see `call-sandbox/node`,
 * `call-sandbox/server` for the adapters.
 */
export { Sandbox, type AddCallInput, type AddedCall, type ApiKey, type SandboxChanges } from './sandbox/Sandbox.js'
export { createSandbox, type CreateSandboxOptions, type SandboxWithHandlers } from './handlers/createSandbox.js'
export {
  Sessions,
  DEFAULT_SESSION,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_LIMIT,
  type SessionLimits,
  type StoredSession,
} from './sessions/Sessions.js'
export { DEFAULT_SESSION_TTL_MS, expiresAt } from './sessions/expiry.js'
export { createHandlers } from './handlers/createHandlers.js'
export type { SandboxOptions } from './sandbox/options.js'
export type { Settings, FaultSettings, SettingsChange } from './sandbox/Settings.js'
export { Clock } from './sandbox/Clock.js'
export { ApiError } from './schemas/ApiError.js'
export { ContactExistsError, StorageUnavailableError } from './sandbox/domainErrors.js'
export { SessionExistsError, SessionLimitError } from './sessions/sessionErrors.js'
export { answer } from './handlers/answer.js'
export { UpstreamProxy } from './proxy/UpstreamProxy.js'
export {
  sendWithFetch,
  type ProxyOptions,
  type UpstreamReply,
  type UpstreamRequest,
  type UpstreamSend,
} from './proxy/proxyOptions.js'
export { Recording, RECORDING_FORMAT } from './proxy/recording.js'
export { routes } from './http/routes.js'
export { controlRoutes } from './control/controlRoutes.js'
export { faultRoutes } from './control/faultRoutes.js'
export type { AddedFaultRule, FaultRules } from './sandbox/FaultRules.js'
export { openApiDocument } from './openapi/openApiDocument.js'
export { scenarios, SCENARIO_NAMES, type Scenario } from './sandbox/scenarios.js'
export { defaultOrganizations, OrganizationFixture, type ApiKeyFixture } from './seed/fixtures.js'
export * from './schemas/index.js'
