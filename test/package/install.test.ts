import { execFile } from 'node:child_process'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { consumerProject, devVersion, type ConsumerProject } from './consumerProject.js'
import { packagesNamed } from './packagesNamed.js'
import { relativeLinks } from '../support/docs.js'

/*
 * The packed package in a consumer's project: what installing it brings in,
 * what it ships, and the package checks (publint, arethetypeswrong).
 */

const ROOT = resolve(import.meta.dirname, '../..')
const tarball = inject('tarball')
const exec = promisify(execFile)
let consumer: ConsumerProject

beforeAll(async () => {
  consumer = await consumerProject(tarball, [`msw@${devVersion('msw')}`], {})
}, 180_000)
afterAll(() => consumer?.remove())

interface LockedPackage {
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  hasInstallScript?: boolean
}

/**
 * The folders of every package that installing call-sandbox brought in (itself included), found as Node resolves them;
 * its peer msw is the consumer's.
 */
function broughtIn(folder: string): string[] {
  const locked: Record<string, LockedPackage> = JSON.parse(
    readFileSync(join(folder, 'package-lock.json'), 'utf8'),
  ).packages
  const resolveFrom = (from: string, name: string): string | undefined => {
    for (
      let base = from;
      ;
      base = base.includes('/node_modules/') ? base.slice(0, base.lastIndexOf('/node_modules/')) : ''
    ) {
      const candidate = base ? `${base}/node_modules/${name}` : `node_modules/${name}`
      if (locked[candidate]) return candidate
      if (!base) return undefined
    }
  }
  const found = new Set(['node_modules/call-sandbox'])
  for (const path of found) {
    const { dependencies = {}, optionalDependencies = {} } = locked[path]!
    for (const name of Object.keys({ ...dependencies, ...optionalDependencies })) {
      const target = resolveFrom(path, name)
      if (target) found.add(target)
    }
  }
  return [...found].map((path) => (locked[path]!.hasInstallScript ? `${path} (install script)` : path))
}

/** Bytes of a package's own files, its nested node_modules aside (counted as packages of their own). */
function ownBytes(folder: string): number {
  let bytes = 0
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue
    const path = join(folder, entry.name)
    bytes += entry.isDirectory() ? ownBytes(path) : statSync(path).size
  }
  return bytes
}

describe("a consumer's install", () => {
  it('brings in no package with an install script, and no telemetry', () => {
    const packages = broughtIn(consumer.folder)
    expect(packages.filter((path) => path.endsWith('(install script)'))).toEqual([])
    const everything = Object.keys(
      JSON.parse(readFileSync(join(consumer.folder, 'package-lock.json'), 'utf8')).packages,
    )
    expect(everything.filter((path) => /@scarf\/|swagger-ui/.test(path))).toEqual([])
  })

  it("has one msw: the consumer's own, which the package uses", () => {
    const copies = Object.keys(
      JSON.parse(readFileSync(join(consumer.folder, 'package-lock.json'), 'utf8')).packages,
    ).filter((path) => /(^|\/)node_modules\/msw$/.test(path))
    expect(copies).toEqual(['node_modules/msw'])
  })

  it('weighs what the README says (printed for the README and the closing note)', () => {
    const packages = broughtIn(consumer.folder)
    const megabytes = packages.reduce((sum, path) => sum + ownBytes(join(consumer.folder, path)), 0) / 1024 / 1024
    console.info(
      `install weight: call-sandbox and ${packages.length - 1} packages it brings in, ${megabytes.toFixed(1)} MB on disk (msw, the peer, aside)`,
    )
    expect(packages.length).toBeGreaterThan(1)
  })

  it('runs npx call-sandbox mcp: the SDK, a dependency, found beside the command', async () => {
    const transport = new StdioClientTransport({
      command: 'npx',
      args: ['call-sandbox', 'mcp', '--now', '2026-11-20T12:00:00Z'],
      cwd: consumer.folder,
      env: {
        ...(process.env as Record<string, string>),
        NODE_COMPILE_CACHE: join(consumer.folder, '.node-compile-cache'),
      },
      stderr: 'pipe',
    })
    const client = new Client({ name: 'package-test', version: '1.0.0' })
    try {
      await client.connect(transport)
      expect((await client.listTools()).tools.map(({ name }) => name)).toContain('explain_request')
      const result = (await client.callTool({
        name: 'call_api',
        arguments: { path: '/v1/me', key: 'sk_sandbox_all' },
      })) as { content: { text: string }[] }
      expect(JSON.parse(result.content[0]!.text)).toMatchObject({ status: 200 })
    } finally {
      await client.close()
    }
  })

  it('runs npx call-sandbox --help', async () => {
    const help = await consumer.run('npx', ['call-sandbox', '--help'])
    expect(help).toContain('Usage: call-sandbox [options]')
    expect(help).toContain('--max-sessions')
  })

  it('loads neither Express nor the API reference in process', async () => {
    const hooks = `export async function resolve(specifier, context, next) {
      const resolved = await next(specifier, context)
      process.stderr.write('loaded ' + resolved.url + '\\n')
      return resolved
    }`
    const script = `
      import { register } from 'node:module'
      register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}))
      const { setupSandboxServer } = await import('call-sandbox/node')
      const { sandbox } = setupSandboxServer({ now: '2026-11-20T12:00:00Z' })
      await sandbox.ready`
    const loaded = (await consumer.run(process.execPath, ['--input-type=module', '-e', script]))
      .split('\n')
      .filter((line) => line.startsWith('loaded '))
    expect(loaded.some((line) => line.includes('/node_modules/msw/'))).toBe(true)
    expect(loaded.filter((line) => /node_modules\/(express|cors|commander)\//.test(line))).toEqual([])
    expect(loaded.filter((line) => /dist\/(docs|esm\/(server|cli)\.js|esm\/chunks\/startServer)/.test(line))).toEqual(
      [],
    )
  })

  it('is required from CommonJS, with the same world as the ES module', async () => {
    const script = `
      const { createSandbox, answer } = require('call-sandbox')
      const sandbox = createSandbox({ now: '2026-11-20T12:00:00Z' })
      sandbox.ready
        .then(() => answer(sandbox, new Request('https://api.example.com/v1/calls?limit=3', { headers: { Authorization: 'Bearer sk_sandbox_all' } })))
        .then((response) => response.json())
        .then(({ data }) => console.log(JSON.stringify(data.map((call) => call.id))))`
    const esm = `
      const { createSandbox, answer } = await import('call-sandbox')
      const sandbox = createSandbox({ now: '2026-11-20T12:00:00Z' })
      await sandbox.ready
      const { data } = await (await answer(sandbox, new Request('https://api.example.com/v1/calls?limit=3', { headers: { Authorization: 'Bearer sk_sandbox_all' } }))).json()
      console.log(JSON.stringify(data.map((call) => call.id)))`
    const required = JSON.parse(await consumer.run(process.execPath, ['-e', script]))
    expect(required).toHaveLength(3)
    expect(required).toEqual(JSON.parse(await consumer.run(process.execPath, ['--input-type=module', '-e', esm])))
  })
})

describe('the packed files', () => {
  const files = async () =>
    (await exec('tar', ['-tzf', tarball])).stdout
      .trim()
      .split('\n')
      .map((path) => path.replace(/^package\//, ''))

  it('hold every file package.json names', async () => {
    const packed = new Set(await files())
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    const named: string[] = []
    const walk = (value: unknown) => {
      if (typeof value === 'string') named.push(value.replace(/^\.\//, ''))
      else if (value && typeof value === 'object') Object.values(value).forEach(walk)
    }
    walk([manifest.main, manifest.types, manifest.bin, manifest.exports, manifest.typesVersions])
    expect(named.filter((path) => !path.endsWith('package.json') && !packed.has(path))).toEqual([])
    expect(packed).toContain('dist/docs/swagger-ui-bundle.js')
    expect(packed).toContain('dist/docs/LICENSE')
  })

  it('hold the manual: every file the README links to, the license and the changelog', async () => {
    const packed = new Set(await files())
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const linked = relativeLinks(readme)
    expect(linked.length).toBeGreaterThan(5)
    expect(linked.filter((target) => !packed.has(target))).toEqual([])
    expect(packed).toContain('LICENSE')
    expect(packed).toContain('CHANGELOG.md')
  })

  it('name their dependencies and peer, each of them and nothing else, in their code and declarations', () => {
    const folder = join(consumer.folder, 'node_modules/call-sandbox')
    const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'))
    // A dependency nothing names belongs in devDependencies (a bundled one included); one named and not listed fails
    // in a consumer's project.
    const listed = { ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.peerDependencies }
    expect(packagesNamed(folder)).toEqual(Object.keys(listed).sort())
  })

  it('hold nothing of the tests', async () => {
    expect((await files()).filter((path) => /(^|\/)(test|e2e|bench|examples)\/|\.test\.|\.e2e\./.test(path))).toEqual(
      [],
    )
  })
})

describe('package checks', () => {
  it('publint finds no error and no warning', async () => {
    const { stdout } = await exec(join(ROOT, 'node_modules/.bin/publint'), [tarball, '--strict'], { cwd: ROOT })
    expect(stdout).not.toMatch(/Errors:|Warnings:/)
  }, 60_000)

  it('arethetypeswrong finds no problem in any entry a Node program may load (./browser is for bundlers only)', async () => {
    const { stdout } = await exec(
      join(ROOT, 'node_modules/.bin/attw'),
      [tarball, '--format', 'json', '--exclude-entrypoints', 'browser'],
      { cwd: ROOT },
    ).catch((failure) => failure)
    expect(JSON.parse(stdout).analysis.problems).toEqual([])
  }, 60_000)
})
