/**
 * The README and the manual in docs/ cannot drift from the code: the README
 * stays a front door, every link resolves, the reference is what the package
 * generates, every TypeScript block is word for word a file that a test runs,
 * and every curl in them answers what it says against a running server.
 */
import { execFile, execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { routes } from '../src/http/routes.js'
import { DEFAULT_LIMIT, MAX_LIMIT } from '../src/schemas/queries.js'
import { type RunningServer, startServer } from '../src/server/startServer.js'
import { killChildren, listening, runCli } from './support/cli.js'
import { DOC_FILES as FILES, ROOT, relativeLinks, serverCommands, shellLines, shown } from './support/docs.js'

const text = (file: string) => readFileSync(file, 'utf8')
const readme = text(join(ROOT, 'README.md'))

describe('the README', () => {
  it('is a front door: at most 300 lines, naming every endpoint', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300)
    for (const route of routes) {
      const shown = route.path.replace(/:(\w+)/g, '{$1}')
      expect(readme, `${route.method} ${shown}`).toContain(`\`${route.method} ${shown}\``)
    }
  })
})

/**
 * A code block runs where its `<!-- runs in FILE -->` line says: FILE holds the block word for word, and is a test
 * `npm test` runs (or a module one imports), or a file of the example app, which the browser tests build and drive.
 */
describe('every TypeScript block of the README and the manual', () => {
  const blocks = FILES.flatMap((file) =>
    [
      ...text(file).matchAll(
        /(?:<!-- runs in (\S+) -->\n)?```(?:ts|tsx|js|jsx|mjs|cjs|typescript|javascript)\n([\s\S]*?)```/g,
      ),
    ].map(([, home, code], index) => [`${shown(file)} block ${index + 1}`, home, code!] as const),
  )

  it('finds some, in the README and in the guides', () => {
    expect(blocks.filter(([name]) => name.startsWith('README.md')).length).toBeGreaterThanOrEqual(2)
    expect(blocks.length).toBeGreaterThanOrEqual(8)
  })

  it.each(blocks)('%s is word for word in %s, which a test runs', (_name, home, code) => {
    expect(home, 'a `<!-- runs in FILE -->` line right before the block').toBeDefined()
    expect(text(join(ROOT, home!)), home).toContain(code)
    if (home!.startsWith('examples/calls-inbox/')) {
      expect(home).toMatch(/^examples\/calls-inbox\/(?:(?:src|\.storybook)\/[\w.]+\.tsx?|vite\.config\.ts)$/)
      return
    }
    expect(home).toMatch(/^test\/(?!package\/|fleet\/)[\w/.-]+\.ts$/)
    if (home!.endsWith('.test.ts')) return
    const folder = dirname(join(ROOT, home!))
    const module = `./${basename(home!, '.ts')}.js`
    const importers = readdirSync(folder).filter(
      (name) => name.endsWith('.test.ts') && text(join(folder, name)).includes(`from '${module}'`),
    )
    expect(importers, `a test beside ${home} that imports ${module}`).not.toEqual([])
  })
})

describe('the manual', () => {
  it('gives the page size the code has', () => {
    expect(readme).toContain(`\`limit\` (1 to ${MAX_LIMIT}, default ${DEFAULT_LIMIT})`)
    expect(text(join(ROOT, 'docs/behaviour.md'))).toContain(`\`limit\` 1 to ${MAX_LIMIT}, default ${DEFAULT_LIMIT}`)
  })

  it.each(FILES.map((file) => [shown(file), file]))(
    '%s links only to files that exist, and to nothing outside the repository',
    (_name, file) => {
      const body = text(file)
      expect(body).not.toMatch(/\.\.\/shared\//)
      for (const target of relativeLinks(body)) {
        const path = resolve(dirname(file), target)
        expect(path.startsWith(ROOT), target).toBe(true)
        expect(existsSync(path), `${target} from ${shown(file)}`).toBe(true)
      }
    },
  )

  it('has the reference the built package generates (npm run docs writes it)', () => {
    const generated = JSON.parse(
      execFileSync(process.execPath, ['scripts/reference.mjs', '--print'], { cwd: ROOT, encoding: 'utf8' }),
    )
    for (const [name, content] of Object.entries(generated)) {
      expect(text(join(ROOT, `docs/reference/${name}.md`)), `docs/reference/${name}.md: run npm run docs`).toBe(
        `${(content as string).trimEnd()}\n`,
      )
    }
  })
})

/** What a reader copies from: the README, the manual, SECURITY.md, the Dockerfile, and the examples' own files. */
const COPIED_FROM = [
  ...FILES,
  join(ROOT, 'SECURITY.md'),
  join(ROOT, 'Dockerfile'),
  ...readdirSync(join(ROOT, 'examples'), { recursive: true, encoding: 'utf8' })
    // Not what builds leave there (the browser tests build the example into dist/, dist-standalone/, storybook-static/).
    .filter((name) => !/(^|\/)(node_modules|dist|dist-[\w-]+|storybook-static)\/|package-lock\.json$/.test(name))
    .filter((name) => /\.(md|py|ts|tsx|js|mjs|html|json|ya?ml|sh)$/.test(name))
    .map((name) => join(ROOT, 'examples', name)),
]

/**
 * An admin token a snippet gives, as a literal a reader would paste unchanged: a value, not a reference to one
 * (`$NAME`, `"$NAME"`, `${{ secrets.NAME }}`, `<token>`) nor a variable of the snippet's code (a made token).
 */
const GIVEN_TOKEN =
  /CALL_SANDBOX_ADMIN_TOKEN["']?(?:\s*[=:]\s*|\s*,\s*)(?!["']?[$<])("[^"]*"|'[^']*'|[^\s,)}]+)|--admin-token[=\s]+(?!["']?[$<])(\S+)|Bearer (?!sk_|["']?[$<])([\w-]+)|adminToken["']?\s*:\s*(["'`][^"'`]*["'`])/g
/** A port published on every interface of the machine: `-p 4010:4010`, `ports: ['4010:4010']`, `- "4010:4010"`. */
const PUBLISHED_EVERYWHERE =
  /(?:^|\s)(?:-p|--publish)[=\s]+["']?\d+:\d+|ports:\s*\[\s*["']?\d+:\d+|^\s*-\s*["']?\d+:\d+["']?\s*$/m
/** Identifiers a snippet's code may name a token by; any word else is a literal. */
const A_VARIABLE = /^(?!["'])[a-z][A-Za-z_]*(\.\w+)*(\(.*)?$/

describe('what a reader copies', () => {
  it('finds the admin tokens the docs give, and the ports they publish', () => {
    const shapes = [
      'docker run -p 4010:4010 -e CALL_SANDBOX_ADMIN_TOKEN=dev-only call-sandbox',
      'with_env("CALL_SANDBOX_ADMIN_TOKEN", "test-token")',
      "  .withEnvironment({ CALL_SANDBOX_ADMIN_TOKEN: 'test-token' })",
      '  CALL_SANDBOX_ADMIN_TOKEN: ci-only',
      "ports: ['4010:4010']",
      '  - "4010:4010"',
      'call-sandbox --admin-token hunter2',
      'curl -H "Authorization: Bearer dev-only"',
      "startServer({ port: 4010, host: '0.0.0.0', adminToken: 'dev-only' })",
      'createSandbox({ adminToken: "test-token" })',
    ]
    for (const shape of shapes) expect(problemsOf(shape), shape).not.toEqual([])
    const references = [
      'docker run -p 127.0.0.1:4010:4010 -e CALL_SANDBOX_ADMIN_TOKEN="$ADMIN_TOKEN" call-sandbox',
      '.with_env("CALL_SANDBOX_ADMIN_TOKEN", admin_token)',
      '  .withEnvironment({ CALL_SANDBOX_ADMIN_TOKEN: adminToken })',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a template
      '  CALL_SANDBOX_ADMIN_TOKEN: ${{ secrets.CALL_SANDBOX_ADMIN_TOKEN }}',
      "ports: ['127.0.0.1:4010:4010']",
      'curl -H "Authorization: Bearer $CALL_SANDBOX_ADMIN_TOKEN" -H "Authorization: Bearer sk_sandbox_all"',
      'redis-cli -p 6379',
      "startServer({ host: '0.0.0.0', adminToken: process.env.CALL_SANDBOX_ADMIN_TOKEN })",
      'unless its sandbox has an `adminToken`: `app.listen(4010)` listens on every interface',
    ]
    for (const reference of references) expect(problemsOf(reference), reference).toEqual([])
  })

  it.each(COPIED_FROM.map((file) => [shown(file), file]))(
    '%s gives no admin token to paste, and publishes no port on every interface',
    (_name, file) => {
      expect(problemsOf(text(file))).toEqual([])
    },
  )
})

function problemsOf(body: string): string[] {
  const tokens = [...body.matchAll(GIVEN_TOKEN)]
    .map(([whole, ...values]) => [whole, values.find((value) => value !== undefined)!] as const)
    .filter(([, value]) => !A_VARIABLE.test(value) || /^(token|secret|password|admin|changeme)$/i.test(value))
    .map(([whole]) => `an admin token to paste: ${whole}`)
  const published = body.split('\n').filter((line) => PUBLISHED_EVERYWHERE.test(line))
  return [...tokens, ...published.map((line) => `a port published on every interface: ${line.trim()}`)]
}

describe('every curl of the README and the manual', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0, quiet: true, now: '2026-11-20T12:00:00Z' })
  })
  afterAll(() => server.close())

  /**
   * The curl commands of the sh blocks that ask the sandbox (`$API`), a command's continued lines joined, each with
   * the status its comment names. The proxy guide's ask a sandbox in front of a real service: not this one.
   */
  const curls = FILES.filter((file) => !file.endsWith('checking-the-real-service.md')).flatMap((file) =>
    shellLines(file)
      // Not a line with a placeholder (<id>) or a redirection in its command; its comment may have either.
      .filter(
        (line) => line.startsWith('curl ') && line.includes('"$API') && !/<|\s>\s/.test(line.replace(/\s+#.*$/, '')),
      )
      .map((line) => [shown(file), line] as const),
  )

  it('finds some', () => expect(curls.length).toBeGreaterThan(10))

  it.each(curls)('%s: %s', async (_file, line) => {
    // Each from the seeded world (a guide's reset to the empty scenario does not empty the next one's lists), after
    // one request of a key, as a reader's journal and usage report would have.
    await fetch(`${server.url}/_sandbox/reset`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"scenario":"default"}',
    })
    await fetch(`${server.url}/v1/me`, { headers: { Authorization: 'Bearer sk_sandbox_all' } })
    const expected = /#.*?\b([1-5]\d\d)\b/.exec(line)?.[1]
    // A comment that counts the records (`# 2 calls: …`) is held to its count.
    const counted = /#\s*(\d+) (?:calls|contacts|leads|appointments)\b/.exec(line)?.[1]
    const command = `${line.replace(/\s+#.*$/, '')} -s -w '\\n%{http_code}'`
    // Not spawnSync: the server answering curl runs in this very process.
    const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
      execFile(
        'sh',
        ['-c', command],
        { env: { ...process.env, API: server.url, AUTH: 'Authorization: Bearer sk_sandbox_all' }, timeout: 20_000 },
        (error, stdout, stderr) => done({ status: error ? (error.code as number) : 0, stdout, stderr }),
      )
    })
    expect(run.status, run.stderr).toBe(0)
    const status = Number(run.stdout.slice(run.stdout.lastIndexOf('\n') + 1))
    const body = JSON.parse(run.stdout.slice(0, run.stdout.lastIndexOf('\n')))
    if (expected) {
      expect(status).toBe(Number(expected))
      return
    }
    expect(status, JSON.stringify(body)).toBeLessThan(300)
    if (counted) {
      expect(body.data, JSON.stringify(body)).toHaveLength(Number(counted))
      return
    }
    // An example returns data: a list with records in it, or a record.
    if (Array.isArray(body.data)) expect(body.data.length, 'an empty list').toBeGreaterThan(0)
    else expect(body.data).toBeDefined()
  })
})

describe('every server command of the README and the manual', () => {
  const env = { ADMIN_TOKEN: 'docs-admin-token', TOKEN: 'docs-admin-token' }
  /** The real service the proxy guide names, played by a sandbox of this test's own. */
  const VENDOR = 'https://api.vendor.example'
  // The fleet's, with --store redis://, run in npm run test:fleet (test/fleet/docs.test.ts), which has a Redis.
  const commands = serverCommands().filter((command) => !command.line.includes('--store'))
  let vendor: RunningServer
  let folder: string
  beforeAll(async () => {
    vendor = await startServer({ port: 0, quiet: true, now: '2026-11-20T12:00:00Z' })
    folder = mkdtempSync(join(tmpdir(), 'call-sandbox-docs-'))
  })
  afterAll(async () => {
    killChildren()
    await vendor.close()
    rmSync(folder, { recursive: true, force: true })
  })

  it('finds them all', () => {
    expect(commands.length).toBeGreaterThanOrEqual(10)
    expect(commands.map((command) => command.line).join('\n')).toMatch(/--proxy[\s\S]*--world/)
  })

  // In the order a reader runs them, in one folder: the proxy guide's --world reads what its --record wrote.
  it.each(commands.map((command) => [command.file, command.line.replace(/\s+#.*$/, ''), command] as const))(
    '%s: %s starts, serves the API and stops cleanly',
    async (_file, _line, command) => {
      const args = command.args(env).map((word) => (word === VENDOR ? vendor.url : word))
      const cli = runCli([...args, '--port', '0'], command.variables(env), folder)
      const { url } = await listening(cli)
      const admin = { Authorization: `Bearer ${env.ADMIN_TOKEN}` }
      expect((await fetch(`${url}/_sandbox/health`, { headers: admin })).status).toBe(200)
      // A recorded world has the keys of the recording's organizations.
      const key = args.includes('--world') ? 'sk_recorded_1' : 'sk_sandbox_all'
      const response = await fetch(`${url}/v1/calls?limit=2`, { headers: { Authorization: `Bearer ${key}` } })
      // One API request in twenty fails on purpose with --error-rate 0.05 (the same ones for the same seed).
      if (args.includes('--error-rate')) expect([200, 500, 503]).toContain(response.status)
      else {
        expect(response.status, cli.stdout()).toBe(200)
        expect((await response.json()).data).toHaveLength(2)
      }
      cli.child.kill('SIGTERM')
      expect(await cli.exit()).toEqual({ code: 0, signal: null })
    },
  )
})
