/**
 * The stores and fleets guide's servers, as a reader starts them: the docs'
 * `--store redis://` commands, pointed at a Redis of this test's own (one
 * node, or a cluster for the commands that list a cluster's nodes), are one
 * sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { killChildren, listening, runCli } from '../support/cli.js'
import { type ServerCommand, serverCommands } from '../support/docs.js'
import { type RedisCluster, startCluster } from '../support/redisCluster.mjs'
import { type RedisServer, startRedis } from '../support/redisServer.js'

let redis: RedisServer
let cluster: RedisCluster
beforeAll(async () => {
  ;[redis, cluster] = await Promise.all([startRedis(), startCluster({ primaries: 3 })])
})
afterAll(async () => {
  killChildren()
  await Promise.all([redis.stop(), cluster.stop()])
})

const fleets = serverCommands().filter((command) => command.line.includes('--store redis://'))
const listsNodes = (command: ServerCommand) => /--store redis:\/\/\S+,/.test(command.line)

describe.each([
  { store: 'one Redis', commands: fleets.filter((command) => !listsNodes(command)), url: () => redis.url },
  { store: 'a Redis Cluster', commands: fleets.filter(listsNodes), url: () => cluster.urls },
])("the guide's fleet commands over $store", ({ commands, url }) => {
  it('start as one sandbox', async () => {
    const env = { TOKEN: 'docs-admin-token' }
    expect(commands.length).toBeGreaterThanOrEqual(2)
    const servers = await Promise.all(
      commands.map(async (command) => {
        const args = command.args(env).map((word) => (word.startsWith('redis://') ? url() : word))
        const cli = runCli([...args, '--port', '0'], command.variables(env))
        return { cli, ...(await listening(cli)) }
      }),
    )
    const [first, second] = servers
    const auth = { Authorization: 'Bearer sk_sandbox_all', 'Content-Type': 'application/json' }
    const created = await fetch(`${first!.url}/v1/contacts`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ phone: '+14155550199' }),
    })
    expect(created.status).toBe(201)
    const { data } = await created.json()
    const read = await fetch(`${second!.url}/v1/contacts/${data.id}`, { headers: auth })
    expect(read.status).toBe(200)
    const health = await fetch(`${second!.url}/_sandbox/health`, {
      headers: { Authorization: `Bearer ${env.TOKEN}` },
    })
    expect((await health.json()).data.store).toMatchObject({ kind: 'redis', state: 'ok' })
    for (const { cli } of servers) {
      cli.child.kill('SIGTERM')
      expect(await cli.exit()).toEqual({ code: 0, signal: null })
    }
  })
})
