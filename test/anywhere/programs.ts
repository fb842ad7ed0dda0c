import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { expect, onTestFinished } from 'vitest'
import { type Cli, listening, runProgram } from '../support/cli.js'
import { startRedis } from '../support/redisServer.js'
import { tempFolder } from '../support/tempFolder.js'

export const ROOT = resolve(import.meta.dirname, '../..')
/** The one file `npm run build` writes. */
export const ONE_FILE = join(ROOT, 'dist', 'call-sandbox.cjs')
export const KEY = { Authorization: 'Bearer sk_sandbox_all' }

/**
 * A new temp folder holding only `file`, with no `node_modules` in it or in any folder above it: what a machine with
 * no npm project has. Fails (never skips) where TMPDIR sits inside a project.
 */
export function emptyFolderWith(file: string, purpose: string): string {
  const folder = tempFolder(purpose)
  for (let above = folder; ; above = dirname(above)) {
    expect(existsSync(join(above, 'node_modules')), `${above}/node_modules: set TMPDIR outside any project`).toBe(false)
    if (dirname(above) === above) break
  }
  copyFileSync(file, join(folder, file.split('/').at(-1)!))
  return folder
}

/** The one file under this Node, in `folder`, with no environment but HOME (no PATH, no NODE_OPTIONS). */
export async function startOneFile(folder: string, args: string[]): Promise<{ cli: Cli; url: string }> {
  const cli = runProgram([process.execPath, 'call-sandbox.cjs', '--port', '0', ...args], { HOME: folder }, folder)
  return { cli, url: (await listening(cli)).url }
}

export async function get(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers })
  return { status: response.status, type: response.headers.get('content-type'), bytes: await response.bytes() }
}

/**
 * What a server of the package serves from files besides its code: the console with every file its page names,
 * `/docs` with Swagger UI's, byte for byte those the build copied, the API, and metrics (sent `control`, the admin
 * token's header where there is one).
 */
export async function expectServesEverything(url: string, control: Record<string, string> = {}): Promise<void> {
  const me = await get(`${url}/v1/me`, KEY)
  expect(me.status).toBe(200)
  expect(JSON.parse(new TextDecoder().decode(me.bytes)).data.organization_name).toBeTruthy()

  const page = await get(`${url}/_sandbox/console/`)
  expect(page.status).toBe(200)
  const html = new TextDecoder().decode(page.bytes)
  const named = [...html.matchAll(/(?:src|href)="\.\/([\w.-]+)"/g)].map(([, name]) => name!)
  expect(named).toContain('console.js')
  const modules = [...readFileSync(join(ROOT, 'console', 'console.js'), 'utf8').matchAll(/from '\.\/([\w.-]+)'/g)]
  for (const name of new Set([...named, ...modules.map(([, name]) => name!)])) {
    const file = await get(`${url}/_sandbox/console/${name}`)
    expect(file.status, name).toBe(200)
    expect(Buffer.from(file.bytes).equals(readFileSync(join(ROOT, 'console', name))), name).toBe(true)
  }

  const docs = await get(`${url}/docs/`)
  expect(docs.status).toBe(200)
  const assets = [...new TextDecoder().decode(docs.bytes).matchAll(/(?:src|href)="\.\/([\w.-]+)"/g)]
  expect(assets.map(([, name]) => name)).toEqual(
    expect.arrayContaining(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'swagger-ui-init.js']),
  )
  for (const [, name] of assets) {
    const asset = await get(`${url}/docs/${name}`)
    expect(asset.status, name).toBe(200)
    if (name === 'swagger-ui-init.js') continue
    expect(Buffer.from(asset.bytes).equals(readFileSync(join(ROOT, 'dist', 'docs', name!))), name).toBe(true)
  }
  expect((await get(`${url}/docs/favicon-32x32.png`)).type).toBe('image/png')
  expect((await get(`${url}/openapi.json`)).status).toBe(200)

  const metrics = await get(`${url}/_sandbox/metrics`, control)
  expect(metrics.status).toBe(200)
  expect(new TextDecoder().decode(metrics.bytes)).toMatch(/^call_sandbox_\w+/m)
}

/** The single executable `npm run build:sea` writes for this machine. */
export const EXECUTABLE = join(ROOT, 'dist', 'sea', 'call-sandbox-linux-x64')

/** The single executable in `folder`, under `env -i`: no PATH, no HOME, no Node anywhere it could look. */
export async function startExecutable(folder: string, args: string[]): Promise<{ cli: Cli; url: string }> {
  const cli = runProgram(['./call-sandbox-linux-x64', '--port', '0', ...args], {}, folder)
  return { cli, url: (await listening(cli)).url }
}

/** A simulated call, made through the control plane (201). */
export async function simulateCall(url: string): Promise<{ id: string }> {
  const response = await fetch(`${url}/_sandbox/calls`, { method: 'POST' })
  expect(response.status).toBe(201)
  return (await response.json()).data
}

/** Two servers started by `start` on a real redis-server of the test's own: a call made on one is on the other. */
export async function expectRedisFleet(start: (args: string[]) => Promise<{ url: string }>): Promise<void> {
  const redis = await startRedis()
  try {
    // A fleet's servers seed the same world: the same instant, not each its own start.
    const fleet = ['--quiet', '--store', redis.url, '--now', '2026-11-20T12:00:00Z']
    const one = await start(fleet)
    const two = await start(fleet)
    const call = await simulateCall(one.url)
    expect((await get(`${two.url}/v1/calls/${call.id}`, KEY)).status).toBe(200)
  } finally {
    await redis.stop()
  }
}

/** The packages the one file leaves out, each an import away were it to look for them outside itself. */
const LEFT_OUT = ['@modelcontextprotocol/sdk', '@node-rs/xxhash']

/**
 * A fake of each package left out, in `nodeModules`, whose every file writes `canary` when it runs: what a machine
 * holds where the program would look, were it to load a package from outside itself. Removed when the test ends.
 */
export function plantCanaries(nodeModules: string, canary: string): void {
  const made = !existsSync(nodeModules)
  onTestFinished(() => {
    if (made) rmSync(nodeModules, { recursive: true, force: true })
    else for (const name of LEFT_OUT) rmSync(join(nodeModules, name), { recursive: true, force: true })
  })
  const code = `require('node:fs').appendFileSync(${JSON.stringify(canary)}, __filename + '\\n')\n`
  for (const name of LEFT_OUT) {
    const folder = join(nodeModules, name)
    expect(existsSync(folder), `${folder} is there already`).toBe(false)
    mkdirSync(join(folder, 'server'), { recursive: true })
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ name, version: '9.9.9', main: 'index.js' }))
    for (const file of ['index.js', 'server/mcp.js', 'server/stdio.js']) writeFileSync(join(folder, file), code)
  }
}
