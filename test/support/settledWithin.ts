/**
 * How a promise stands after `ms`: `answered`, `failed`, or `still pending`.
 * For a request a test expects to be held.
 *
 * @example
 * expect(await settledWithin(fetch(url), 300)).toBe('still pending')
 */
export function settledWithin(promise: Promise<unknown>, ms: number): Promise<'answered' | 'failed' | 'still pending'> {
  return Promise.race([
    promise.then(
      () => 'answered' as const,
      () => 'failed' as const,
    ),
    new Promise<'still pending'>((resolve) => setTimeout(resolve, ms, 'still pending')),
  ])
}
