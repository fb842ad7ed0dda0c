/** What msw does with a request no handler answers: fail it, or let it reach the network unremarked. */
export type UnhandledStrategy = 'error' | 'bypass'

/**
 * `server.listen()` options for a request no handler answers, in the words of
 * either msw: msw 2 reads `onUnhandledRequest`, msw 3 `onUnhandledFrame`.
 * Each ignores the other's, and would fall back to its default, `'warn'`:
 * a request that should have failed the test would pass with a warning.
 *
 * @example
 * server.listen(onUnhandled('error'))
 */
export function onUnhandled<Strategy extends UnhandledStrategy>(
  strategy: Strategy,
): { onUnhandledRequest: Strategy; onUnhandledFrame: Strategy } {
  return { onUnhandledRequest: strategy, onUnhandledFrame: strategy }
}
