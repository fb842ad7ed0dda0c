/*
 * The connection of `--store`: one Redis node, or a Redis Cluster. The store
 * sends every command with the key it is about, and the connection takes it
 * to the node that holds that key: a cluster is sharded by session, and no
 * command spans two sessions (see `redisKeys.ts`).
 */

/** How long a write waits for replicas to take it before it is refused (503 `storage_unavailable`). */
export const REPLICA_WAIT_MS = 1_000
/** How long a command waits for Redis's answer before it is given up (503 `storage_unavailable`): `--store-timeout`. */
export const DEFAULT_STORE_TIMEOUT_MS = 2_000
/** What `--store-timeout` may be, in ms. */
export const STORE_TIMEOUT_RANGE = { min: 10, max: 600_000 } as const
/** The commands a connection (to each node) holds that Redis has not answered yet, at most. */
export const COMMAND_QUEUE_LIMIT = 10_000
/** How long opening a connection may take, to its first answer; then the start stops with an error. */
const CONNECT_TIMEOUT_MS = 2_000

/**
 * Redis did not answer a command within `--store-timeout` (it stalls, or the network to it is cut without a reset).
 * The command may still reach Redis and run, once, later: what it wrote may be kept.
 */
export class StoreTimeout extends Error {
  constructor(readonly ms: number) {
    super(`did not answer within ${ms} ms (--store-timeout)`)
  }
}
/** How long a shard's count of replicas is trusted, in `auto`: a failover or a replica that joins is seen this soon. */
const REPLICAS_CHECKED_MS = 1_000

/**
 * How many replicas must have a write before it is answered (`--store-replicas`): a number (0: none, Redis's own
 * asynchronous replication), or `auto`: one, on a shard (or a lone node) that has a replica connected now.
 */
export type ReplicaWaits = number | 'auto'

/** A command as Redis takes it: its name, then its arguments. */
export type Command = Array<string>

export interface RedisConnection {
  /** For messages: `Redis at host:port`, or `Redis Cluster at host:port,…`. */
  readonly where: string
  /** Sends a command to the node that holds `key` (every key it names is in `key`'s slot). */
  send(key: string, command: Command): Promise<unknown>
  /**
   * Resolves once as many replicas as `--store-replicas` asks have every write sent so far about `key`; rejects when
   * they do not within `REPLICA_WAIT_MS`.
   */
  replicated(key: string): Promise<void>
  close(): Promise<void>
}

interface Node {
  sendCommand(command: Command): Promise<unknown>
}

/**
 * Connects to `--store`: `redis[s]://[user:password@]host:port[/db]`, a node
 * of a cluster or not (Redis says, `INFO cluster`), or several nodes of one
 * cluster, `redis://host:port,host:port`. `failed` hears every error of the
 * connection; `ready`, that it is back. Every command fails with a
 * `StoreTimeout` once `timeoutMs` pass without its answer.
 */
export async function connectRedis(
  url: string,
  replicas: ReplicaWaits,
  events: { failed(error: Error): void; ready(): void },
  timeoutMs = DEFAULT_STORE_TIMEOUT_MS,
): Promise<RedisConnection> {
  const { min, max } = STORE_TIMEOUT_RANGE
  if (!(Number.isSafeInteger(timeoutMs) && timeoutMs >= min && timeoutMs <= max)) {
    throw new TypeError(`--store-timeout takes a whole number of ms from ${min} to ${max}; got ${timeoutMs}.`)
  }
  const nodes = nodeUrls(url)
  const hosts = nodes.map((node) => new URL(node).host)
  const { createClient, createCluster } = await loadRedisClient()
  const opening = CONNECT_TIMEOUT_MS + timeoutMs
  if (nodes.length === 1 && !(await isCluster(createClient, nodes[0]!, opening))) {
    const client = createClient({ url: nodes[0], ...CONNECTION })
    client.on('error', events.failed)
    client.on('ready', events.ready)
    await connected(client, () => client.destroy(), opening)
    const waits = replicaWaits(replicas)
    return {
      where: `Redis at ${hosts[0]}${new URL(nodes[0]!).pathname.replace(/^\/$/, '')}`,
      send: (_key, command) => answered(client.sendCommand(command), timeoutMs),
      // `WAIT` itself waits up to `REPLICA_WAIT_MS` in Redis.
      replicated: () => answered(waits(client), REPLICA_WAIT_MS + timeoutMs),
      // `close` waits for the answers of the commands sent: a stalled Redis's never come.
      close: () => answered(client.close(), timeoutMs).catch(() => client.destroy()),
    }
  }
  const first = new URL(nodes[0]!)
  if (first.pathname.length > 1) {
    throw new Error(`--store: a Redis Cluster has one database, 0: drop ${first.pathname} from ${url}.`)
  }
  const cluster = createCluster({
    rootNodes: nodes.map((node) => ({ url: node })),
    defaults: {
      ...CONNECTION,
      ...(first.username !== '' && { username: decodeURIComponent(first.username) }),
      ...(first.password !== '' && { password: decodeURIComponent(first.password) }),
      ...(first.protocol === 'rediss:' && { socket: { ...CONNECTION.socket, tls: true } }),
    },
    // A node that stops answering (a primary gone, its replica promoted): the cluster's slots are read again soon,
    // so that its sessions are served by the new primary within a failover's time.
    topologyRefreshOnReconnectionAttemptStrategy: 200,
  })
  cluster.on('error', events.failed)
  cluster.on('node-error', events.failed)
  cluster.on('node-ready', events.ready)
  try {
    // Not `connected`: a node that does not answer is an error the cluster goes on from, to the next node given.
    await answered(cluster.connect(), opening)
  } catch (error) {
    cluster.destroy()
    // The client connects to every primary before it answers: one that takes the connection and answers nothing
    // (stopped, or cut off) holds the start, however many others answered.
    if (error instanceof StoreTimeout) {
      throw new Error(
        `--store ${url}: a node of the Redis Cluster took the connection and did not answer within ${opening} ms (stopped, or the network to it cut); a server starts once every primary answers.`,
      )
    }
    throw new Error(`--store ${url}: no Redis Cluster answered there (${(error as Error).message}).`)
  }
  const waits = replicaWaits(replicas)
  const followed = followingFailovers(cluster, timeoutMs)
  return {
    where: `Redis Cluster at ${hosts.join(',')}`,
    send: (key, command) => followed(key, answered(cluster.sendCommand(key, false, command), timeoutMs)),
    replicated: (key) =>
      followed(
        key,
        answered(
          cluster.getNodeClientForKey(key).then((node) => waits(node)),
          REPLICA_WAIT_MS + timeoutMs,
        ),
      ),
    close: () => answered(cluster.close(), timeoutMs).catch(() => cluster.destroy()),
  }
}

const CONNECTION = {
  // A command while the connection is down fails at once (a 503), rather than waiting in a queue.
  disableOfflineQueue: true,
  // A command given up on (`answered`) waits in the queue for its answer; while Redis stalls under load they add up:
  // past this many, a command fails at once (a 503), and what they hold stays bounded.
  commandsQueueMaxLength: COMMAND_QUEUE_LIMIT,
  socket: {
    connectTimeout: CONNECT_TIMEOUT_MS,
    reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1_000),
  },
}

/** How often, at most, the cluster's slots are read again because a primary did not answer in time. */
const SLOTS_REREAD_MS = 1_000

/**
 * A command's answer, and when Redis did not give it in time, the cluster's slots read again from its other nodes.
 * A primary that stalls (stopped, or cut off without a reset) keeps its connection open, so the client never
 * reconnects and never reads the slots again on its own: once the cluster fails the primary over, its sessions
 * would go on being sent to it, and answered 503, for as long as it stalls, their new primary unused.
 */
function followingFailovers(
  cluster: {
    getNodeClientForKey(key: string): Promise<unknown>
    readonly masters: ReadonlyArray<{ client?: unknown; address: string }>
    readonly _slots: { rediscover(startWith: undefined, excluded: ReadonlySet<string>): Promise<void> }
  },
  timeoutMs: number,
): <T>(key: string, answer: Promise<T>) => Promise<T> {
  let readAt = Number.NEGATIVE_INFINITY
  const reread = async (key: string) => {
    if (performance.now() - readAt < SLOTS_REREAD_MS) return
    readAt = performance.now()
    const client = await cluster.getNodeClientForKey(key)
    const stalled = cluster.masters.find((node) => node.client === client)?.address
    // Not from the stalled node itself: its answer would never come, and no other read could start meanwhile.
    // `_slots.rediscover` is the client's own, the one it runs after a reconnect (there is no public one).
    await answered(cluster._slots.rediscover(undefined, new Set(stalled ? [stalled] : [])), timeoutMs)
  }
  return (key, answer) =>
    answer.catch((error: unknown) => {
      if (error instanceof StoreTimeout) reread(key).catch(() => undefined)
      throw error
    })
}

/** The URL of each node `--store` names: `redis://a:1,b:2/0` is `redis://a:1/0` and `redis://b:2/0`. */
export function nodeUrls(url: string): string[] {
  const match = /^(rediss?:\/\/)([^@/]*@)?([^/@]+)(\/.*)?$/.exec(url)
  if (!match) {
    throw new Error(
      `--store takes redis://host:port[/db] (rediss:// for TLS), or a cluster's nodes, redis://host:port,host:port; got ${url}.`,
    )
  }
  const [, scheme, credentials = '', hosts, path = ''] = match
  return hosts!.split(',').map((host) => {
    const node = `${scheme}${credentials}${host.trim()}${path}`
    if (!URL.canParse(node) || new URL(node).hostname === '') {
      throw new Error(`--store: ${JSON.stringify(host)} of ${url} is no host:port.`)
    }
    return node
  })
}

type RedisClientModule = typeof import('@redis/client')

/**
 * `@redis/client`, an optional peer dependency: imported with `--store` only, and named with how to install it when
 * it is missing. `load` is the import, for a test to stand in for.
 */
export async function loadRedisClient(
  load: () => Promise<RedisClientModule> = () => import('@redis/client'),
): Promise<RedisClientModule> {
  try {
    return await load()
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException
    const missing =
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes('@redis/client')
    if (!missing) throw error
    throw new Error(
      '--store keeps sessions in Redis through the package @redis/client, an optional peer of call-sandbox that is not installed: install it beside call-sandbox (npm install @redis/client), or keep writes in a data file (--data).',
    )
  }
}

/**
 * Connects, or throws the first error: a Redis out of reach stops the start (the client would try for ever), and so
 * does one that takes the connection and never answers (stopped), after `ms`.
 */
async function connected(
  client: { connect(): Promise<unknown>; once(event: 'error', listener: (error: Error) => void): unknown },
  destroy: () => void,
  ms: number,
): Promise<void> {
  try {
    await answered(Promise.race([client.connect(), new Promise((_, reject) => client.once('error', reject))]), ms)
  } catch (error) {
    destroy()
    if (error instanceof StoreTimeout) {
      throw new Error(
        `--store: Redis took the connection and did not answer within ${ms} ms (stopped, or the network to it cut).`,
      )
    }
    throw error
  }
}

/** Whether a node is one of a Redis Cluster's: its `INFO cluster` says `cluster_enabled:1`. */
async function isCluster(createClient: RedisClientModule['createClient'], url: string, ms: number): Promise<boolean> {
  const client = createClient({ url, ...CONNECTION })
  // Errors are the connect's to throw; one the client emits besides would be unhandled.
  client.on('error', () => undefined)
  await connected(client, () => client.destroy(), ms)
  try {
    return /^cluster_enabled:1\s*$/m.test(String(await answered(client.sendCommand(['INFO', 'cluster']), ms)))
  } finally {
    // Not `close`: it waits for the answers of commands sent, which a stalled Redis never gives.
    client.destroy()
  }
}

/**
 * `answer`, or a `StoreTimeout` once `ms` pass. The client sets no such bound on a command it has sent (its own
 * `timeout` option ends with the sending), so a stalled Redis would hold it for as long as it stalls. A command given
 * up on stays in the connection's queue: its answer, when it comes, is matched to it and dropped, so the answers
 * of the commands after it stay theirs.
 */
export function answered<T>(answer: Promise<T>, ms: number): Promise<T> {
  // One promise, one timer: a few microseconds a command, against a round trip to Redis of tens or hundreds.
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new StoreTimeout(ms)), ms)
    // An answer or an error after the timeout (the connection lost then) settles nothing: the promise is settled.
    answer.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}

/**
 * Waits for the replicas a write needs, on the node that took it (`WAIT`
 * counts the writes sent over that connection). In `auto`, a node's count of
 * connected replicas is read with `INFO replication` at most once a second,
 * and again after a wait that failed.
 */
function replicaWaits(replicas: ReplicaWaits): (node: Node) => Promise<void> {
  const known = new WeakMap<Node, { replicas: number; at: number }>()
  const needed = async (node: Node): Promise<number> => {
    if (replicas !== 'auto') return replicas
    const seen = known.get(node)
    if (seen && performance.now() - seen.at < REPLICAS_CHECKED_MS) return Math.min(1, seen.replicas)
    const info = String(await node.sendCommand(['INFO', 'replication']))
    const connected = Number(/^connected_slaves:(\d+)/m.exec(info)?.[1] ?? 0)
    known.set(node, { replicas: connected, at: performance.now() })
    return Math.min(1, connected)
  }
  return async (node) => {
    const count = await needed(node)
    if (count === 0) return
    const acknowledged = Number(await node.sendCommand(['WAIT', String(count), String(REPLICA_WAIT_MS)]))
    if (acknowledged < count) {
      known.delete(node)
      throw new Error(
        `${acknowledged} of the ${count} replica${count === 1 ? '' : 's'} a write needs took it within ${REPLICA_WAIT_MS} ms (--store-replicas)`,
      )
    }
  }
}
