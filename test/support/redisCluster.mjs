// A Redis Cluster of a test's (or the bench's) own: Debian's redis-server, one
// process a node on a free loopback port, each in a folder of its own in one
// temporary folder, with the fleet's durable settings (durable-redis.conf).
// Plain JavaScript, so that bench/store.mjs starts the same cluster as the tests;
// redisCluster.d.mts gives the tests its types.
import { execFile, spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { freePort } from './freePort.mjs'

const DURABLE_REDIS_CONF = fileURLToPath(new URL('durable-redis.conf', import.meta.url))
/** How long the cluster may take to form, or to fail over, before the test fails. */
const SETTLE_MS = 30_000

/**
 * Starts `primaries` primaries with `replicas` replicas each, and resolves
 * once every node says `cluster_state:ok` and every replica is in sync.
 *
 * @param {{ primaries?: number, replicas?: number, nodeTimeoutMs?: number, within?: string }} [options]
 */
export async function startCluster({ primaries = 3, replicas = 0, nodeTimeoutMs = 1_000, within = tmpdir() } = {}) {
  if (spawnSync('redis-server', ['--version']).error) {
    throw new Error('redis-server is missing: install it (apt-get install redis-server); .ci/run does.')
  }
  const folder = mkdtempSync(join(within, 'call-sandbox-redis-cluster-'))
  const nodes = []
  try {
    for (let i = 0; i < primaries * (1 + replicas); i++) nodes.push(await launchNode(folder, nodeTimeoutMs))
    const created = spawnSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...nodes.map(({ port }) => `127.0.0.1:${port}`),
        '--cluster-replicas',
        String(replicas),
        '--cluster-yes',
      ],
      { encoding: 'utf8' },
    )
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed:\n${created.stdout}${created.stderr}`)
    await settled(nodes, primaries)
  } catch (error) {
    await Promise.all(nodes.map((node) => node.kill()))
    rmSync(folder, { recursive: true, force: true })
    throw error
  }
  return {
    /** One node's URL: `--store` finds the others. */
    url: `redis://127.0.0.1:${nodes[0].port}`,
    /** Every node's, as one `--store` value. */
    urls: `redis://${nodes.map(({ port }) => `127.0.0.1:${port}`).join(',')}`,
    nodes,
    /** Each primary alive now, and the slots it serves. */
    primaries: () => primariesOf(nodes),
    /** The port of the node that serves a key now. */
    portOf: async (key) => {
      const slot = Number(await anyNode(nodes, 'CLUSTER', 'KEYSLOT', key))
      const serving = await primariesOf(nodes)
      const primary = serving.find(({ slots }) => slots.some(([low, high]) => low <= slot && slot <= high))
      if (!primary) throw new Error(`No primary serves slot ${slot} of ${key}.`)
      return primary.port
    },
    /** The ports of a primary's replicas. */
    replicasOf: async (port) => {
      const known = (await anyNode(nodes, 'CLUSTER', 'NODES')).split('\n').map((line) => line.trim().split(' '))
      const id = known.find((fields) => fields[1]?.startsWith(`127.0.0.1:${port}@`))?.[0]
      return known.filter((fields) => fields[3] === id).map((fields) => Number(fields[1].split(/[:@]/)[1]))
    },
    /** Kills a node with SIGKILL (a crash), then waits for the cluster to fail over to its replica. */
    crash: async (port) => {
      const node = nodes.find((candidate) => candidate.port === port)
      await node.kill()
      await settled(
        nodes.filter((candidate) => candidate !== node),
        primaries,
      )
    },
    /** Empties every primary (the replicas follow). */
    flush: async () => {
      for (const { port } of await primariesOf(nodes)) await cli(port, 'FLUSHALL')
    },
    /** Stops every node and removes the folder. */
    stop: async () => {
      await Promise.all(nodes.map((node) => node.kill()))
      rmSync(folder, { recursive: true, force: true })
    },
  }
}

async function launchNode(folder, nodeTimeoutMs) {
  const port = await freePort()
  // Redis's default for the bus, the port plus 10,000, may be taken or past 65,535.
  const busPort = await freePort()
  const dir = join(folder, String(port))
  mkdirSync(dir)
  const child = spawn(
    'redis-server',
    [
      DURABLE_REDIS_CONF,
      '--port',
      String(port),
      '--dir',
      dir,
      '--cluster-enabled',
      'yes',
      '--cluster-port',
      String(busPort),
      '--cluster-config-file',
      `nodes-${port}.conf`,
      '--cluster-node-timeout',
      String(nodeTimeoutMs),
      // A shard failing over leaves the others answering.
      '--cluster-require-full-coverage',
      'no',
    ],
    { stdio: 'ignore' },
  )
  const exited = new Promise((resolve) => child.once('exit', resolve))
  await until(async () => (await cli(port, 'PING')) === 'PONG', `redis-server on ${port} did not answer`)
  return {
    port,
    /** Stops the process where it stands (SIGSTOP): a node that hangs, its connections open. */
    freeze: () => child.kill('SIGSTOP'),
    /** Lets a frozen node go on (SIGCONT). */
    thaw: () => child.kill('SIGCONT'),
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGKILL')
      await exited
    },
  }
}

/** Every node alive says the cluster is ok, `primaries` primaries serve every slot, and each replica is in sync. */
function settled(nodes, primaries) {
  return until(async () => {
    for (const { port } of nodes) {
      const info = await cli(port, 'CLUSTER', 'INFO')
      if (!/^cluster_state:ok\s*$/m.test(info) || !/^cluster_slots_ok:16384\s*$/m.test(info)) return false
      const role = await cli(port, 'INFO', 'replication')
      if (/^role:slave\s*$/m.test(role) && !/^master_link_status:up\s*$/m.test(role)) return false
    }
    const serving = await primariesOf(nodes)
    return serving.length === primaries && serving.every(({ port }) => nodes.some((node) => node.port === port))
  }, 'the cluster did not settle')
}

/** The primaries that serve slots, as the first node that answers sees them: port and slot ranges. */
async function primariesOf(nodes) {
  return primariesIn(await anyNode(nodes, 'CLUSTER', 'NODES'))
}

/** A command's answer from the first node that answers it. */
async function anyNode(nodes, ...command) {
  for (const { port } of nodes) {
    const answer = await cli(port, ...command)
    if (answer !== '') return answer
  }
  throw new Error(`No node of the cluster answers ${command.join(' ')}.`)
}

/** The primaries a `CLUSTER NODES` lists as serving slots: port and slot ranges. */
function primariesIn(known) {
  return known
    .split('\n')
    .map((line) => line.trim().split(' '))
    .filter((fields) => fields.length > 8 && /\bmaster\b/.test(fields[2]) && !/\bfail\b/.test(fields[2]))
    .map((fields) => ({
      port: Number(fields[1].replace(/@.*/, '').split(':')[1]),
      slots: fields.slice(8).map((range) => range.split('-').map(Number)),
    }))
    .map(({ port, slots }) => ({ port, slots: slots.map(([low, high = low]) => [low, high]) }))
}

/** A command to one node: its answer, or '' when the node does not answer. */
async function cli(port, ...command) {
  try {
    const { stdout } = await promisify(execFile)('redis-cli', ['-p', String(port), ...command], { encoding: 'utf8' })
    return stdout.trim()
  } catch {
    return ''
  }
}

async function until(condition, message) {
  const deadline = performance.now() + SETTLE_MS
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`${message} within ${SETTLE_MS / 1000} s.`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
