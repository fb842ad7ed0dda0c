/**
 * Errors of the sessions of a server: a name taken, no room for one more.
 * Like the world's (`sandbox/domainErrors.ts`), they know nothing of HTTP;
 * `toApiError` (`http/respond.ts`) maps each to the contract's error.
 */

/** A session of that name exists already (409 `session_exists`). */
export class SessionExistsError extends Error {
  readonly code = 'session_exists'

  constructor(readonly session: string) {
    super(`A session named ${session} exists already.`)
  }
}

/**
 * The server keeps as many sessions as it may (`--session-limit`), so it
 * makes no new one (503 `session_limit_reached`).
 */
export class SessionLimitError extends Error {
  readonly code = 'session_limit_reached'

  constructor(
    readonly session: string,
    readonly limit: number,
    /** Seconds until the least recently used session expires and frees a place; undefined without a TTL. */
    readonly retryAfter: number | undefined,
  ) {
    super(
      `The server keeps at most ${limit.toLocaleString('en')} session${limit === 1 ? '' : 's'} (its session limit), so it makes no session ${session}.`,
    )
  }
}
