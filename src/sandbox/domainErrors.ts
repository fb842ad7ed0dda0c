/**
 * Errors of the world below HTTP: what a write ran into (the sessions'
 * own are in `sessions/sessionErrors.ts`). They know nothing of statuses or
 * envelopes; `toApiError` (`http/respond.ts`) is the one place that maps
 * each to the contract's error.
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

/**
 * The store did not take a write (a full or read-only disk, Redis out of
 * reach): the write was undone in memory (503 `storage_unavailable`, with
 * `Retry-After`); the next write tries again. `unanswered`: the store did not
 * answer in time, and may still keep what it was sent (once): the next read
 * of the log brings it. `unreplicated`: the store took the write, and its
 * replicas did not confirm it (`--store-replicas`): kept, unless its primary
 * is lost before they have it.
 */
export class StorageUnavailableError extends Error {
  readonly code = 'storage_unavailable'

  constructor(
    /** What the store is: `the data file ./sandbox.log`, `Redis at 127.0.0.1:6379`. */
    readonly store: string,
    readonly reason: string,
    readonly unanswered = false,
    readonly unreplicated = false,
  ) {
    super(
      unanswered
        ? `${store} ${reason}.`
        : unreplicated
          ? `${store} took the write, but ${reason}.`
          : `${store} did not take the write (${reason}).`,
    )
  }
}
