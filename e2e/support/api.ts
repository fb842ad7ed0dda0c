/**
 * The instant both the service worker's world and the standalone server's are seeded at, their clocks standing still.
 */
export const E2E_NOW = '2026-11-20T12:00:00Z'

/**
 * A GET to the standalone server with sk_sandbox_all: the body as parsed JSON, and as sent.
 *
 * @example
 * const { body } = await apiGet(apiUrl, '/v1/calls?limit=25')
 */
export async function apiGet(apiUrl: string, path: string): Promise<{ status: number; body: any; text: string }> {
  const response = await fetch(apiUrl + path, { headers: { Authorization: 'Bearer sk_sandbox_all' } })
  const text = await response.text()
  return { status: response.status, body: JSON.parse(text), text }
}
