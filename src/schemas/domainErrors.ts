/**
 * Errors of the world below HTTP: what a write ran into. They know nothing
 * of statuses or envelopes; `toApiError` (`http/respond.ts`) is the one
 * place that maps each to the contract's error.
 */

/** A contact of the organization has the phone already (409 `contact_exists`). */
export class ContactExistsError extends Error {
  readonly code = 'contact_exists'

  constructor(
    readonly phone: string,
    readonly contactId: string,
  ) {
    super(`A contact with phone ${phone} already exists (${contactId}).`)
  }
}

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

/**
 * The store did not take a write (a full or read-only disk, Redis out of
 * reach): the write was undone in memory (503 `storage_unavailable`, with
 * `Retry-After`); the next write tries again.
 */
export class StorageUnavailableError extends Error {
  readonly code = 'storage_unavailable'

  constructor(
    /** What the store is: `the data file ./sandbox.log`, `Redis at 127.0.0.1:6379`. */
    readonly store: string,
    readonly reason: string,
  ) {
    super(`${store} did not take the write (${reason}).`)
  }
}
