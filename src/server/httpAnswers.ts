import type { ServerResponse } from 'node:http'

/*
 * What the standalone server does alike for every request it answers, in
 * Express or ahead of it (proxy mode's requests, see proxiedRequests.ts).
 */

/** Headers a browser app on another origin may read. */
export const EXPOSED_HEADERS = [
  'X-Request-Id',
  'Location',
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Preference-Applied',
  'X-Sandbox-Contract',
  'X-Sandbox-Request-Id',
]

/** Methods a fetch `Request` cannot be made with, so MSW never sees them. */
export const OUTSIDE_FETCH = new Set(['CONNECT', 'TRACE', 'TRACK'])

/**
 * Writes an answer out in one piece: status, headers (Set-Cookie once per
 * cookie, every other header once), body.
 *
 * @example
 * writeAnswer(response, 200, new Headers({ 'Content-Type': 'application/json' }), bytes)
 */
export function writeAnswer(response: ServerResponse, status: number, headers: Headers, body: Uint8Array | null): void {
  response.statusCode = status
  headers.forEach((value, name) => (name === 'set-cookie' ? response.appendHeader(name, value) : response.setHeader(name, value)))
  response.end(body === null ? undefined : Buffer.from(body.buffer, body.byteOffset, body.byteLength))
}

/** Writes a fetch `Response` out as `writeAnswer` does, once its body is read. */
export async function sendAnswer(response: ServerResponse, answer: Response): Promise<void> {
  writeAnswer(response, answer.status, answer.headers, new Uint8Array(await answer.arrayBuffer()))
}
