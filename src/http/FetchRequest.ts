/**
 * A request as the sandbox reads it: its URL, method, headers and body. A
 * Fetch `Request` is one; so is what the Node adapter makes of a GET or a
 * HEAD (see `fetchRequestOf`).
 *
 * @note Not `Request` itself: an undici `Request` made per GET (its
 * `AbortSignal`, and the finalizer that ties the two) cost about a tenth of
 * the command's CPU time a request (`GET /v1/calls?limit=50`, measured by the
 * server's own CPU time over thousands of requests).
 */
export type FetchRequest = Pick<Request, 'url' | 'method' | 'headers' | 'body' | 'bodyUsed'>
