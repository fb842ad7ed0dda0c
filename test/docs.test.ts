/**
 * The README and the manual in docs/ cannot drift from the code: the README
 * stays a front door, every link resolves, the reference is what the package
 * generates, the README's test snippet is the one test/readme.test.ts runs,
 * and every curl in them answers what it says against a running server.
 */
import { execFile, execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { routes } from '../src/http/routes.js'
import { type RunningServer, startServer } from '../src/server/startServer.js'

const ROOT = resolve(import.meta.dirname, '..')

function markdownFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? markdownFiles(join(folder, entry.name))
      : entry.name.endsWith('.md')
        ? [join(folder, entry.name)]
        : [],
  )
}
const FILES = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))]
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

  it('shows the test snippet that test/readme.test.ts runs', () => {
    const snippet = /```ts\n(import \{ setupSandboxServer \}[\s\S]*?)```/.exec(readme)![1]!
    const tested = text(join(ROOT, 'test/readme.test.ts'))
    for (const line of snippet.split('\n').filter((line) => line.trim() !== '')) {
      expect(tested, line).toContain(line.replace(/\s+\/\/.*$/, '').trimEnd())
    }
  })
})

describe('the manual', () => {
  it.each(FILES.map((file) => [file.slice(ROOT.length + 1), file]))(
    '%s links only to files that exist, and to nothing outside the repository',
    (_name, file) => {
      const body = text(file)
      expect(body).not.toMatch(/\.\.\/shared\//)
      for (const [, target] of body.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue
        const path = resolve(dirname(file), target!)
        expect(path.startsWith(ROOT), target).toBe(true)
        expect(existsSync(path), `${target} from ${file.slice(ROOT.length + 1)}`).toBe(true)
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
    [...text(file).matchAll(/```sh\n([\s\S]*?)```/g)].flatMap(([, block]) =>
      block!
        .replace(/\\\n\s*/g, ' ')
        .split('\n')
        .filter((line) => line.startsWith('curl ') && line.includes('"$API') && !/<|\s>\s/.test(line))
        .map((line) => [file.slice(ROOT.length + 1), line] as const),
    ),
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
    // An example returns data: a list with records in it, or a record.
    if (Array.isArray(body.data)) expect(body.data.length, 'an empty list').toBeGreaterThan(0)
    else expect(body.data).toBeDefined()
  })
})
