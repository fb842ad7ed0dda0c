import type { FetchRequest } from './FetchRequest.js'

/** The header the console sends with its own requests, so that browsing the world leaves no trace in it. */
export const CONSOLE_HEADER = 'X-Sandbox-Console'

/**
 * Whether a request is the console reading for itself (`X-Sandbox-Console: 1` on a GET or a HEAD): such a read is
 * neither journaled nor counted (the usage report, the metrics), and meets none of the world's faults, so that
 * looking at the world changes nothing a test of it sees.
 *
 * @note Reads only: a write with the header is journaled and counted as any other, so no client can hide a change
 * from the journal. A client that marks its own reads hides only what changes nothing.
 *
 * @example
 * isConsoleRead(new Request(url, { headers: { 'X-Sandbox-Console': '1' } })) // true
 */
export function isConsoleRead(request: FetchRequest): boolean {
  return (request.method === 'GET' || request.method === 'HEAD') && request.headers.get(CONSOLE_HEADER) === '1'
}
