/** Where the control plane lives, below a root. */
export const CONTROL_PREFIX = '/_sandbox'
/** Where the sessions are managed, at the bare root only. */
export const SESSIONS_PATH = `${CONTROL_PREFIX}/sessions`
/** Where a session's root lives: `/sessions/{name}`, with the API, the control plane and the document below it. */
export const SESSION_PREFIX = '/sessions'
/** Where a probe asks whether the server is alive (see `/_sandbox/ready` for whether it can serve). */
export const LIVENESS_PATH = `${CONTROL_PREFIX}/live`
/** Where a probe asks whether the server can serve: its world seeded, its store taking writes. */
export const READINESS_PATH = `${CONTROL_PREFIX}/ready`
/** Where the OpenAPI document is served, below a root. */
export const DOCUMENT_PATH = '/openapi.json'

/**
 * Whether a path (below a root) is the API's.
 *
 * @example
 * isApiPath('/v1/calls') // true
 */
export function isApiPath(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/')
}

/**
 * Whether a path (below a root) is the control plane's.
 *
 * @example
 * isControlPath('/_sandbox/reset') // true
 */
export function isControlPath(path: string): boolean {
  return path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`)
}

/**
 * Whether a path is the sessions' own, under `/_sandbox/sessions`.
 *
 * @example
 * isSessionsPath('/_sandbox/sessions/ci-1') // true
 */
export function isSessionsPath(path: string): boolean {
  return path === SESSIONS_PATH || path.startsWith(`${SESSIONS_PATH}/`)
}

/**
 * Whether a path is below a session's root, `/sessions/…`.
 *
 * @example
 * isSessionPath('/sessions/ci-1/v1/me') // true
 */
export function isSessionPath(path: string): boolean {
  return path === SESSION_PREFIX || path.startsWith(`${SESSION_PREFIX}/`)
}

/** `/sessions/ci-1/v1/me` → `ci-1` and `/v1/me`; the name still percent-encoded, as sent. */
export function splitSessionPath(path: string): { name: string; rest: string } {
  const after = path.slice(SESSION_PREFIX.length + 1)
  const slash = after.indexOf('/')
  return slash === -1 ? { name: after, rest: '' } : { name: after.slice(0, slash), rest: after.slice(slash) }
}

/**
 * The path below its root: a session's own path below `/sessions/{name}`, the path itself at the bare root.
 *
 * @example
 * belowRoot('/sessions/ci-1/_sandbox/reset') // '/_sandbox/reset'
 */
export function belowRoot(path: string): string {
  return isSessionPath(path) ? splitSessionPath(path).rest : path
}
