/** A node of a cluster started by `startCluster`. */
export interface ClusterNode {
  port: number
  /** Stops the process where it stands (SIGSTOP): a node that hangs, its connections open. */
  freeze(): void
  /** Lets a frozen node go on (SIGCONT). */
  thaw(): void
  /** SIGKILL (what a crash does), and waits for the process to be gone. */
  kill(): Promise<void>
}

export interface RedisCluster {
  /** One node's URL: `--store` finds the others. */
  url: string
  /** Every node's, as one `--store` value (`redis://127.0.0.1:P1,127.0.0.1:P2,…`). */
  urls: string
  nodes: ClusterNode[]
  /** Each primary alive now, and the slot ranges it serves. */
  primaries(): Promise<Array<{ port: number; slots: Array<[number, number]> }>>
  /** The port of the primary that serves a key now (`CLUSTER KEYSLOT`, then `CLUSTER NODES`). */
  portOf(key: string): Promise<number>
  /** The ports of a primary's replicas. */
  replicasOf(port: number): Promise<number[]>
  /** Kills a node with SIGKILL (a crash), then waits for the cluster to fail over to its replica. */
  crash(port: number): Promise<void>
  /** Empties every primary (the replicas follow). */
  flush(): Promise<void>
  /** Stops every node and removes the folder. */
  stop(): Promise<void>
}

/**
 * A Redis Cluster of a test's own on loopback: `primaries` primaries with `replicas` replicas each, durable
 * (`appendfsync always`), `cluster-node-timeout` of `nodeTimeoutMs`; resolves once it is ok and in sync.
 */
export function startCluster(options?: {
  primaries?: number
  replicas?: number
  nodeTimeoutMs?: number
  /** The folder to make the cluster's folder in (default: the system's temp folder). */
  within?: string
}): Promise<RedisCluster>
