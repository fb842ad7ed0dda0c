import { MemoryRuleBook } from '../sandbox/FaultRules.js'
import type { Journal } from '../sandbox/Journal.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import { Settings } from '../sandbox/Settings.js'
import type { Snapshot } from '../sandbox/snapshot.js'
import { Usage } from '../sandbox/Usage.js'
import type { LogEntry } from '../schemas/snapshot.js'
import { type CreateSessionRequest, SESSION_NAME_MESSAGE, SESSION_NAME_PATTERN } from '../schemas/index.js'

/** One session of a server, as `Sessions` keeps it: its world while in memory, and what it keeps when put away. */
export interface Session {
  name: string
  /** What `POST /_sandbox/sessions` gave beyond the server's options; undefined when the first request made it. */
  options: Omit<CreateSessionRequest, 'name'> | undefined
  createdAt: number
  lastUsedAt: number
  requests: number
  /** Requests under way: a session answering one is never put away. */
  inFlight: number
  /** Whether anything was written to it or its clock moved since it was made or brought back. */
  changed: boolean
  /** Its world, while in memory. */
  world?: Sandbox
  /** Its world being brought back. */
  loading?: Promise<Sandbox>
  /** Its world as it stood when last put away (or kept in the store): what it comes back from. */
  saved?: Snapshot
  /** Its store's log since `saved`: put back after it. */
  entries: LogEntry[]
  /** Whether its store knows it (it was created there, or its first write made it so). */
  inStore: boolean
  /** Its request journal and usage report: its own, not its world's, so they stay while the world is put away. */
  journal: Journal
  usage: Usage
  /** Its fault rules in this process (a store a fleet shares keeps its own): they stay while the world is put away. */
  faultRules: MemoryRuleBook
  /** Its latency, error rate and rate limit: kept apart from its world, as its journal is, with the changes made to them. */
  settings: Settings
}

export function newSession(
  name: string,
  options: Session['options'],
  journal: Journal,
  createdAt = Date.now(),
  faultRules = new MemoryRuleBook(),
): Session {
  return {
    name,
    options,
    createdAt,
    lastUsedAt: createdAt,
    requests: 0,
    inFlight: 0,
    changed: false,
    entries: [],
    inStore: false,
    journal,
    usage: new Usage(),
    faultRules,
    settings: new Settings(),
  }
}

/** Whether a session put away holds nothing but its seed: forgotten, it would come back the same. */
export function holdsNothing(session: Session): boolean {
  return (
    !session.world &&
    !session.saved &&
    !session.options &&
    !session.inStore &&
    !session.settings.changed &&
    session.entries.length === 0 &&
    session.journal.size === 0 &&
    session.usage.empty &&
    session.faultRules.size === 0
  )
}

/** The name, or a TypeError that says what a name is. */
export function checkedName(name: string): string {
  if (!SESSION_NAME_PATTERN.test(name))
    throw new TypeError(`A session name ${SESSION_NAME_MESSAGE}; got ${JSON.stringify(name)}.`)
  return name
}

/** A name nobody chose: `s-` and ten random letters and digits. */
export function newSessionName(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'
  let name = 's-'
  for (const byte of crypto.getRandomValues(new Uint8Array(10))) name += alphabet[byte % alphabet.length]
  return name
}
