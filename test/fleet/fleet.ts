/**
 * What the fleet's tests share: the Redis topologies they run on, servers
 * over a store, and the requests they send.
 */
import { spawnSync } from 'node:child_process'
import { createClient, createCluster } from '@redis/client'
import { afterAll, afterEach, beforeAll } from 'vitest'
import { type RunningServer, type ServerOptions, startServer } from '../../src/server/startServer.js'
import { killChildren } from '../support/cli.js'
import { pagesOf } from '../support/proxies.js'
import { startCluster } from '../support/redisCluster.mjs'
import { startRedis } from '../support/redisServer.js'
import { NOW } from '../support/transports.js'

export const AUTH = { Authorization: 'Bearer sk_sandbox_all' }
const JSON_AUTH = { ...AUTH, 'Content-Type': 'application/json' }

/** A store the tests run against: its `--store` URL, and a look at where a session's keys live and what they hold. */
export interface StoreUnderTest {
  url: string
  /** How many Redis primaries share the sessions. */
  primaries: number
  /** The port of the Redis node that holds a session's keys. */
  nodeOf(session: string): Promise<number>
  /** A command about `key`, sent to the node that holds it. */
  send(key: string, ...command: string[]): Promise<unknown>
  /** Every key gone, between two tests. */
  empty(): Promise<void>
  stop(): Promise<void>
}

/** The topologies every behaviour of a fleet holds on. */
export const TOPOLOGIES: Array<{ name: string; start(): Promise<StoreUnderTest> }> = [
  {
    name: 'one Redis node',
    start: async () => {
      const redis = await startRedis()
      const client = await createClient({ url: redis.url }).connect()
      return {
        url: redis.url,
        primaries: 1,
        nodeOf: async () => redis.port,
        send: (_key, ...command) => client.sendCommand(command),
        empty: async () => {
          await client.sendCommand(['FLUSHALL'])
        },
        stop: async () => {
          client.destroy()
          await redis.stop()
        },
      }
    },
  },
  {
    name: 'a Redis Cluster of three primaries',
    start: async () => {
      const cluster = await startCluster({ primaries: 3 })
      const client = await createCluster({ rootNodes: [{ url: cluster.url }] }).connect()
      return {
        url: cluster.url,
        primaries: 3,
        nodeOf: (session) => cluster.portOf(`call-sandbox:{${session}}:log`),
        send: (key, ...command) => client.sendCommand(key, true, command),
        empty: () => cluster.flush(),
        stop: async () => {
          client.destroy()
          await cluster.stop()
        },
      }
    },
  },
]

/**
 * The store of a `describe` block: started before its tests, emptied after each (once its servers are stopped), and
 * stopped after them.
 */
export function storeOf(topology: { start(): Promise<StoreUnderTest> }): StoreUnderTest {
  const store = {} as StoreUnderTest
  beforeAll(async () => {
    Object.assign(store, await topology.start())
  })
  afterAll(() => store.stop())
  afterEach(async () => {
    await stopServers()
    await store.empty()
  })
  return store
}

/** A command to one Redis node, waited for (in a test's setup). */
export function redisCli(port: number, ...command: string[]): string {
  return spawnSync('redis-cli', ['-p', String(port), ...command], { encoding: 'utf8' }).stdout.trim()
}

const running: RunningServer[] = []

/** Stops the servers of `server` and the programs of `runCli` (each test's afterEach, before the store is emptied). */
export async function stopServers(): Promise<void> {
  killChildren()
  await Promise.all(running.splice(0).map((server) => server.close()))
}

/** A server over `store`, stopped by `stopServers`. */
export async function server(store: string, options: ServerOptions = {}): Promise<RunningServer> {
  const started = await startServer({ port: 0, quiet: true, now: NOW, store, ...options })
  running.push(started)
  return started
}

/** Closes a server of `server` before the test ends. */
export async function closed(target: RunningServer): Promise<void> {
  running.splice(running.indexOf(target), 1)
  await target.close()
}

export async function createContact(url: string, phone: string) {
  const response = await fetch(`${url}/v1/contacts`, {
    method: 'POST',
    headers: JSON_AUTH,
    body: JSON.stringify({ phone }),
  })
  return { status: response.status, body: await response.json() }
}

export async function get(url: string, path: string) {
  const response = await fetch(`${url}${path}`, { headers: AUTH })
  return { status: response.status, body: await response.json() }
}

export async function control(url: string, path: string, body: unknown) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: await response.json() }
}

/** Every contact of the key's organization, newest first, walking the cursors. */
export async function allContacts(url: string, root = ''): Promise<Array<{ id: string; phone: string }>> {
  return (await pagesOf(url, `${root}/v1/contacts?limit=100`)).flatMap((page) => page.body.data)
}
