import { SessionEnded, type StoreLog } from '../sandbox/StoreLog.js'
import type { LogEntry } from '../schemas/snapshot.js'
import type { Session } from './Session.js'
import type { Store } from './Store.js'

/**
 * What the sessions of a server keep in its store: a session made known to
 * it at its first write (or its creation), its end, its expiry, and each
 * world's part of the store. With no store (a server in memory), nothing.
 */
export class SessionStore {
  readonly #store: Store | undefined

  constructor(store?: Store) {
    this.#store = store
  }

  /** Whether other servers use the store too: a session put away is then left there, to come back from its log. */
  get shared(): boolean {
    return this.#store?.shared ?? false
  }

  /** Tells the store of a named session it does not know yet. */
  async putInStore(session: Session): Promise<void> {
    if (!this.#store || session.inStore) return
    const created_at = new Date(session.createdAt).toISOString()
    await this.#store.append(session.name, { created: { created_at, options: session.options ?? null } })
    session.inStore = true
  }

  /**
   * A session was ended: the store forgets it. A store several servers share holds a session's journal and fault
   * rules from its first request, before it is made known there: it forgets them too.
   */
  async ended(session: Session): Promise<void> {
    if (this.#store && (session.inStore || this.#store.shared)) await this.#store.append(session.name, { ended: true })
  }

  /** A session expired: a store of this server alone forgets it too (see `Store.forget`). */
  expired(session: Session): void {
    if (session.inStore) this.#store?.forget(session.name).catch(() => undefined)
  }

  /** A session this server did not know may have been made by another server of a fleet: it is made as it was there. */
  async madeElsewhere(session: Session): Promise<void> {
    if (!this.#store || session.inStore) return
    const elsewhere = await this.#store.session(session.name)
    if (!elsewhere) return
    session.options = elsewhere.options ?? undefined
    session.createdAt = Date.parse(elsewhere.created_at)
    session.inStore = true
  }

  /** A named session's world's part of the store: `current()` (the session, while it lasts) is made known by its first entry. */
  world(name: string, current: () => Session | undefined): StoreLog | undefined {
    const log = this.#store?.log(name)
    if (!log) return undefined
    const append = async (entry: LogEntry) => {
      const session = current()
      if (session) await this.putInStore(session)
      await log.append(entry)
    }
    if (!log.shared) return { ...log, append }
    return {
      ...log,
      append,
      since: async () => {
        const read = await log.since()
        // Made from options of its own, which the session another server makes of the name now has not.
        if (log.sessionGone() && current()?.options !== undefined) throw new SessionEnded()
        return read
      },
    }
  }
}
