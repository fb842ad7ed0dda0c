/**
 * `call-sandbox mcp` with a sandbox of its own over a store that other servers share (`--store`): the journal its
 * tools read holds what those servers' clients sent, so its tools say that their world is open.
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { CLI } from '../support/cli.js'
import { type RedisServer, startRedis } from '../support/redisServer.js'
import { NOW } from '../support/transports.js'
import { AUTH, server, stopServers } from './fleet.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
let redis: RedisServer

beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await stopServers()
  await redis.stop()
})

it('says openWorldHint on every tool with --store: another server of the fleet writes its journal', async () => {
  const other = await server(redis.url)
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(ROOT, CLI), 'mcp', '--store', redis.url, '--now', NOW],
    stderr: 'ignore',
  })
  const client = new Client({ name: 'call-sandbox-test', version: '1.0.0' })
  await client.connect(transport)
  try {
    const { tools } = await client.listTools()
    expect(tools.length).toBeGreaterThan(10)
    for (const tool of tools) expect(tool.annotations?.openWorldHint, tool.name).toBe(true)
    // What makes it so: a client of the other server, whose request the agent reads.
    await fetch(`${other.url}/v1/calls?note=sent-to-the-other-server`, { headers: AUTH })
    const read = async () => {
      const answer = await client.callTool({ name: 'list_requests', arguments: { path: '/v1/calls' } })
      expect(JSON.stringify(answer)).toContain('sent-to-the-other-server')
    }
    await vi.waitFor(read, { timeout: 10_000, interval: 100 })
  } finally {
    const pid = transport.pid
    await client.close()
    if (pid) await vi.waitFor(() => expect(() => process.kill(pid, 0)).toThrow(), { timeout: 10_000, interval: 50 })
  }
})
