/**
 * The stores and fleets guide's servers, as a reader starts them: the docs'
 * `--store redis://` commands, pointed at a Redis of this test's own, are one
 * sandbox.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { killChildren, listening, runCli } from '../support/cli.js'
import { serverCommands } from '../support/docs.js'
import { type RedisServer, startRedis } from '../support/redisServer.js'

let redis: RedisServer
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  killChildren()
  await redis.stop()
})

it("starts the guide's fleet commands as one sandbox over one Redis", async () => {
  const env = { TOKEN: 'docs-admin-token' }
  const commands = serverCommands().filter((command) => command.line.includes('--store redis://'))
  expect(commands.length).toBeGreaterThanOrEqual(2)
  const servers = await Promise.all(
    commands.map(async (command) => {
      const args = command.args(env).map((word) => (word.startsWith('redis://') ? redis.url : word))
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
  const health = await fetch(`${second!.url}/_sandbox/health`, { headers: { Authorization: `Bearer ${env.TOKEN}` } })
  expect((await health.json()).data.store).toMatchObject({ kind: 'redis', state: 'ok' })
  for (const { cli } of servers) {
    cli.child.kill('SIGTERM')
    expect(await cli.exit()).toEqual({ code: 0, signal: null })
  }
})
