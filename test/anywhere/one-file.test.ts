/**
 * The one file (`dist/call-sandbox.cjs`) runs with `node` alone, copied into an empty folder with no `node_modules`
 * anywhere above it, and keeps every feature but `mcp` (the MCP SDK stays out): the console and `/docs` (their files inside it), metrics, a data file,
 * Redis, the proxy and its recording.
 */
import { existsSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { join } from 'node:path'
import { parseAstAsync } from 'rolldown/parseAst'
import { afterEach, describe, expect, it } from 'vitest'
import { killChildren, runProgram } from '../support/cli.js'
import {
  emptyFolderWith,
  expectRedisFleet,
  expectServesEverything,
  get,
  KEY,
  ONE_FILE,
  plantCanaries,
  simulateCall,
  startOneFile,
} from './programs.js'

afterEach(killChildren)

describe('the one file, alone in an empty folder', () => {
  it('holds no require of a package: only what Node has built in', () => {
    const required = [...readFileSync(ONE_FILE, 'utf8').matchAll(/require\("([^"]+)"\)/g)].map(([, name]) => name!)
    const builtIn = new Set(builtinModules)
    expect(required.filter((name) => !builtIn.has(name.replace(/^node:/, '')))).toEqual([])
  })

  it('holds no import() at all: a package it leaves out is not looked for outside it', async () => {
    const program = await parseAstAsync(readFileSync(ONE_FILE, 'utf8'))
    const imported: string[] = []
    const pending: unknown[] = [program]
    for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
      if (node === null || typeof node !== 'object') continue
      if ((node as { type?: string }).type === 'ImportExpression')
        imported.push(JSON.stringify((node as { source: unknown }).source))
      pending.push(...Object.values(node))
    }
    expect(imported).toEqual([])
  })

  it('leaves the MCP SDK out: mcp says it needs the npm package, on stderr, and writes nothing to stdout', async () => {
    const folder = emptyFolderWith(ONE_FILE, 'one-file-mcp')
    // A node_modules beside it, holding fakes of what it leaves out: it runs none of them.
    const canary = join(folder, 'canary.log')
    plantCanaries(join(folder, 'node_modules'), canary)
    const cli = runProgram([process.execPath, 'call-sandbox.cjs', 'mcp'], { HOME: folder }, folder)
    expect((await cli.exit()).code).toBe(1)
    expect(cli.stderr()).toBe(
      'call-sandbox mcp: mcp needs the npm package, which brings @modelcontextprotocol/sdk (the one-file build and the single executable leave it out): run npx call-sandbox mcp.\n',
    )
    expect(cli.stdout()).toBe('')
    expect(existsSync(canary) ? readFileSync(canary, 'utf8') : 'nothing ran').toBe('nothing ran')
  })

  it('serves the API, the console, /docs and its assets, and metrics', async () => {
    const folder = emptyFolderWith(ONE_FILE, 'one-file')
    const { url } = await startOneFile(folder, ['--quiet'])
    await expectServesEverything(url)
  })

  it('keeps writes in a --data file, there after a restart', async () => {
    const folder = emptyFolderWith(ONE_FILE, 'one-file-data')
    const first = await startOneFile(folder, ['--quiet', '--data', 'sandbox.log'])
    const call = await simulateCall(first.url)
    first.cli.child.kill('SIGTERM')
    expect((await first.cli.exit()).code).toBe(0)
    const second = await startOneFile(folder, ['--quiet', '--data', 'sandbox.log'])
    expect(second.cli.stdout()).toMatch(/restored: 1 writes/)
    expect((await get(`${second.url}/v1/calls/${call.id}`, KEY)).status).toBe(200)
  })

  it('keeps sessions in Redis with --store redis://, its client inside: two servers share a write', async () => {
    const folder = emptyFolderWith(ONE_FILE, 'one-file-redis')
    await expectRedisFleet((args) => startOneFile(folder, args))
  })

  it('proxies to an upstream with --proxy, records it with --record, and serves the recording with --world', async () => {
    const folder = emptyFolderWith(ONE_FILE, 'one-file-proxy')
    const upstream = await startOneFile(folder, ['--quiet'])
    const proxy = await startOneFile(folder, ['--quiet', '--proxy', upstream.url, '--record', 'recorded.json'])
    const through = await get(`${proxy.url}/v1/calls?limit=2`, KEY)
    expect(through.status).toBe(200)
    const ids = (bytes: Uint8Array) =>
      JSON.parse(new TextDecoder().decode(bytes)).data.map(({ id }: { id: string }) => id)
    expect(ids(through.bytes)).toEqual(ids((await get(`${upstream.url}/v1/calls?limit=2`, KEY)).bytes))
    expect((await get(`${proxy.url}/_sandbox/drift`)).status).toBe(200)
    proxy.cli.child.kill('SIGTERM')
    expect((await proxy.cli.exit()).code).toBe(0)
    expect(existsSync(join(folder, 'recorded.json'))).toBe(true)

    const world = await startOneFile(folder, ['--quiet', '--world', 'recorded.json'])
    const [first] = JSON.parse(new TextDecoder().decode(through.bytes)).data
    expect((await get(`${world.url}/v1/calls/${first.id}`, { Authorization: 'Bearer sk_recorded_1' })).status).toBe(200)
  })
})
