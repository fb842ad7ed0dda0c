import { fileURLToPath } from 'node:url'
import { withUrlsShown } from '../sandbox/credentials.js'
import type { Store } from '../sessions/Store.js'
import type { ReplicaWaits } from './redisConnection.js'

/** What opening a store may need besides its URL: the server's options that concern stores. */
export interface StoreOptions {
  /** How many replicas must have a write before it is answered (`--store-replicas`). */
  replicas?: ReplicaWaits
  /** How long a named session may go unused before it is forgotten (`--session-ttl`): a store's keys expire so too. */
  sessionTtlMs: number
  /** How long a command to Redis waits for its answer, then 503 (`--store-timeout`). */
  timeoutMs?: number
  /** What the journals may hold together (`--journal-bytes`): a fleet's, in its store, too. */
  journalBytes?: number
  /** How many named sessions may be kept (`--session-limit`): a fleet's, in its store, too. */
  sessionLimit?: number
}

/** One kind of store: how a location of its scheme opens one. */
interface StoreBackend {
  /** What a location of this scheme looks like, for the error that lists them. */
  shape: string
  open(location: string, options: StoreOptions): Promise<Store>
}

/**
 * Every kind of store, by its URL's scheme. A new backend (PostgreSQL, say)
 * is a file that implements `Store` and a row here.
 * @note Each is imported when opened: a server without `--store` loads no Redis client.
 */
const BACKENDS: Record<string, StoreBackend> = {
  'redis:': { shape: 'redis://host:port[/db], or a cluster, redis://host:port,host:port', open: openRedis },
  'rediss:': { shape: 'rediss://host:port[/db] (TLS)', open: openRedis },
  'file:': { shape: 'file:///path/to/sandbox.log (as --data)', open: (url) => openFile(filePathOf(url)) },
}

/** The path of a `file:///absolute/path` URL; any other `file:` URL (relative, a host, no path) is an error. */
function filePathOf(url: string): string {
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  if (!parsed || !/^file:\/\/\//i.test(url) || parsed.host !== '' || parsed.pathname.endsWith('/')) {
    throw new Error(`--store takes a data file as file:///path/to/sandbox.log, an absolute path to a file; got ${url}.`)
  }
  return fileURLToPath(parsed)
}

async function openRedis(url: string, options: StoreOptions): Promise<Store> {
  return (await import('./redisStore.js')).RedisStore.open(url, options)
}

async function openFile(path: string): Promise<Store> {
  return (await import('./dataFile/FileStore.js')).FileStore.open(path)
}

/**
 * Opens the store of `--data` (a path: the file store) or `--store` (a URL, whose scheme names the backend); none
 * when neither is given.
 *
 * @example
 * const store = await openStore({ store: 'redis://127.0.0.1:6379' }, { sessionTtlMs: 0 })
 */
export async function openStore(
  { data, store }: { data?: string; store?: string },
  options: StoreOptions,
): Promise<Store | undefined> {
  if (data !== undefined && store !== undefined) {
    throw new Error('--data and --store are two stores: give one (a data file for one server, Redis for a fleet).')
  }
  if (data !== undefined) return openFile(data)
  if (store === undefined) return undefined
  try {
    return await backendOf(store).open(store, options)
  } catch (error) {
    // Every message of a store that cannot open quotes its URL: shown without its password and query.
    if (error instanceof Error) error.message = withUrlsShown(error.message, [store])
    throw error
  }
}

/** The backend of a store's URL, by its scheme; a scheme no backend has is an error that lists those there are. */
export function backendOf(url: string): StoreBackend {
  const scheme = /^([a-z][a-z0-9+.-]*:)/i.exec(url)?.[1]?.toLowerCase()
  const backend = scheme === undefined ? undefined : BACKENDS[scheme]
  if (backend) return backend
  const known = Object.values(BACKENDS).map(({ shape }) => shape)
  throw new Error(`--store takes ${known.join('; ')}. Got ${url}, which names no store call-sandbox has.`)
}
