import { createClient, createCluster } from '@redis/client'

/*
 * The connection of `--store`: one Redis node, or a Redis Cluster. The store
 * sends every command with the key it is about, and the connection takes it
 * to the node that holds that key: a cluster is sharded by session, and no
 * command spans two sessions (see `redisKeys.ts`).
 */

/** How long a write waits for replicas to take it before it is refused (503 `storage_unavailable`). */
export const REPLICA_WAIT_MS = 1_000
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
 * connection; `ready`, that it is back.
 */
export async function connectRedis(
  url: string,
  replicas: ReplicaWaits,
  events: { failed(error: Error): void; ready(): void },
): Promise<RedisConnection> {
  const nodes = nodeUrls(url)
  const hosts = nodes.map((node) => new URL(node).host)
  if (nodes.length === 1 && !(await isCluster(nodes[0]!))) {
    const client = createClient({ url: nodes[0], ...CONNECTION })
    client.on('error', events.failed)
    client.on('ready', events.ready)
    await connected(client, () => client.destroy())
    const waits = replicaWaits(replicas)
    return {
      where: `Redis at ${hosts[0]}${new URL(nodes[0]!).pathname.replace(/^\/$/, '')}`,
      send: (_key, command) => client.sendCommand(command),
      replicated: () => waits(client),
      close: () => client.close().catch(() => client.destroy()),
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
    await cluster.connect()
  } catch (error) {
    cluster.destroy()
    throw new Error(`--store ${url}: no Redis Cluster answered there (${(error as Error).message}).`)
  }
  const waits = replicaWaits(replicas)
  return {
    where: `Redis Cluster at ${hosts.join(',')}`,
    send: (key, command) => cluster.sendCommand(key, false, command),
    replicated: async (key) => waits(await cluster.getNodeClientForKey(key)),
    close: () => cluster.close().catch(() => cluster.destroy()),
  }
}

const CONNECTION = {
  // A command while the connection is down fails at once (a 503), rather than waiting in a queue.
  disableOfflineQueue: true,
  socket: { connectTimeout: 2_000, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1_000) },
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

/** Connects, or throws the first error: a Redis out of reach stops the start (the client would try for ever). */
async function connected(
  client: { connect(): Promise<unknown>; once(event: 'error', listener: (error: Error) => void): unknown },
  destroy: () => void,
): Promise<void> {
  try {
    await Promise.race([client.connect(), new Promise((_, reject) => client.once('error', reject))])
  } catch (error) {
    destroy()
    throw error
  }
}

/** Whether a node is one of a Redis Cluster's: its `INFO cluster` says `cluster_enabled:1`. */
async function isCluster(url: string): Promise<boolean> {
  const client = createClient({ url, ...CONNECTION })
  // Errors are the connect's to throw; one the client emits besides would be unhandled.
  client.on('error', () => undefined)
  await connected(client, () => client.destroy())
  try {
    return /^cluster_enabled:1\s*$/m.test(String(await client.sendCommand(['INFO', 'cluster'])))
  } finally {
    await client.close().catch(() => client.destroy())
  }
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
