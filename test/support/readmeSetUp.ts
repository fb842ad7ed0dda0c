import { expect, it, vi } from 'vitest'

const BASE_URL = 'https://api.example.com'
const AUTH = { Authorization: 'Bearer sk_sandbox_all' }

/**
 * Beyond the README's lines, for its set-up on either msw (test/readme.test.ts on msw 2, test/snippets/msw3.test.ts
 * on msw 3): the page's order, and what the base URL is for. A client that asks another URL must fail the test,
 * with msw's reason, rather than pass on an answer the sandbox gave anyway.
 */
export function checkTheReadmeSetUp(): void {
  it('orders the whole page newest first', async () => {
    const response = await fetch(`${BASE_URL}/v1/calls?limit=5`, { headers: AUTH })
    const created = (await response.json()).data.map((call: { created_at: string }) => call.created_at)
    expect(created).toEqual([...created].sort().reverse())
  })

  it.each([
    ['another host', 'https://api.example.org/v1/calls?limit=5'],
    ['another scheme', 'http://api.example.com/v1/calls?limit=5'],
  ])('fails a request to %s, naming it, rather than answering it', async (_name, url) => {
    const printed = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      const failure = await fetch(url, { headers: AUTH }).then(
        (response) => new Error(`answered ${response.status}`),
        (error: unknown) => error,
      )
      // msw 2 rejects with its own error; msw 3 with fetch's TypeError, its own as the cause.
      expect(failure).toBeInstanceOf(Error)
      const reason = `${failure} ${(failure as Error).cause ?? ''}`
      expect(reason).toMatch(/\[MSW\] Cannot bypass a request when using the "error" strategy/)
      expect(printed.mock.calls.flat().join('\n')).toContain(url.slice(0, url.indexOf('?')))
    } finally {
      printed.mockRestore()
    }
  })
}
