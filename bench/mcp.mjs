// How long a tool call of `call-sandbox mcp` takes, over stdio, as an agent's MCP client (the SDK's own) sees it:
// the median of 200 `call_api` (GET /v1/calls?limit=5) and 200 `list_requests` (the newest 20, summarised), in
// alternation, with the command's own sandbox and against a running server (`--url`); against the same GET sent
// straight to that server with fetch, what the tool adds to a request.
//
// node bench/mcp.mjs   (after npm run build)
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { median } from './median.mjs'
import { benchFigure, CLI, millis, NOW, row, spread } from './shared.mjs'

const CALLS = Number(process.env.BENCH_CALLS ?? 200)
const WARM_UP = 20
const PATH = '/v1/calls?limit=5'
const KEY = 'sk_sandbox_all'
const ADMIN_TOKEN = 'bench-mcp-admin-token-0123456789'

/** @param {string[]} args @param {Record<string, string>} env */
async function connect(args, env) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    env: /** @type {Record<string, string>} */ ({ ...process.env, ...env }),
    stderr: 'pipe',
  })
  const client = new Client({ name: 'bench-mcp', version: '1.0.0' })
  await client.connect(transport)
  return client
}

/** @param {Client} client @param {string} name @param {Record<string, unknown>} args */
async function timedCall(client, name, args) {
  const started = performance.now()
  const result = /** @type {{ isError?: boolean, content: { text: string }[] }} */ (
    await client.callTool({ name, arguments: args })
  )
  const elapsed = performance.now() - started
  if (result.isError) throw new Error(`${name}: ${result.content[0]?.text}`)
  if (name === 'call_api' && JSON.parse(result.content[0]?.text ?? '{}').status !== 200)
    throw new Error(`${name}: ${result.content[0]?.text.slice(0, 200)}`)
  return elapsed
}

/** The medians of CALLS of each tool, in alternation, after a warm-up. @param {Client} client */
async function toolTimes(client) {
  const callApi = { path: PATH, key: KEY }
  for (let i = 0; i < WARM_UP; i++) {
    await timedCall(client, 'call_api', callApi)
    await timedCall(client, 'list_requests', {})
  }
  /** @type {number[]} */
  const api = []
  /** @type {number[]} */
  const journal = []
  for (let i = 0; i < CALLS; i++) {
    api.push(await timedCall(client, 'call_api', callApi))
    journal.push(await timedCall(client, 'list_requests', {}))
  }
  return { api, journal }
}

await benchFigure('mcp', async () => {
  const { startServer } = await import('call-sandbox/server')
  const server = await startServer({ port: 0, quiet: true, now: NOW, adminToken: ADMIN_TOKEN })
  try {
    /** @type {number[]} */
    const direct = []
    for (let i = 0; i < WARM_UP + CALLS; i++) {
      const started = performance.now()
      const response = await fetch(`${server.url}${PATH}`, { headers: { Authorization: `Bearer ${KEY}` } })
      await response.arrayBuffer()
      if (i >= WARM_UP) direct.push(performance.now() - started)
    }
    spread('fetch, straight to the server', direct, millis)
    const baseline = median(direct)

    /** @type {{ label: string, args: string[], env: Record<string, string> }[]} */
    const modes = [
      { label: 'its own sandbox', args: ['--seed', '1', '--now', NOW], env: {} },
      { label: '--url, a running server', args: ['--url', server.url], env: { CALL_SANDBOX_ADMIN_TOKEN: ADMIN_TOKEN } },
    ]
    for (const { label, args, env } of modes) {
      const client = await connect(args, env)
      try {
        const { api, journal } = await toolTimes(client)
        spread(`call_api, ${label}`, api, millis)
        spread(`list_requests, ${label}`, journal, millis)
        row(
          `call_api GET ${PATH} over stdio, ${label} (median of ${CALLS})`,
          millis(median(api)),
          `the same GET, fetch straight to a server: ${millis(baseline)}`,
          median(api) / baseline,
          'reported',
        )
        row(
          `list_requests (the newest 20, summarised) over stdio, ${label} (median of ${CALLS})`,
          millis(median(journal)),
          '',
          undefined,
          'reported',
        )
      } finally {
        await client.close()
      }
    }
  } finally {
    await server.close()
  }
})
