/** Where the control plane lives, below the sandbox's base URL. */
export const CONTROL_PREFIX = '/_sandbox'

/**
 * Whether a path (below the base URL) is the control plane's.
 *
 * @example
 * isControlPath('/_sandbox/reset') // true
 */
export function isControlPath(path: string): boolean {
  return path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`)
}
