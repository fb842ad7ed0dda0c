// 6. A consumer's suite: the packed package in a project of its own, 9 test files on the README's
// setupSandboxServer, against the same 9 on a bare msw handler returning the same bytes.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { median } from './median.mjs'
import { benchFigure, ROOT, removeTempDir, row, run, sandboxAnswer, seconds, spread, tempDir } from './shared.mjs'

await benchFigure('consumer', async () => {
  // The body of the README's test request, for the bare suite.
  const body = (await sandboxAnswer('/v1/calls?limit=5')).toString()
  const dir = tempDir('bench-call-sandbox-consumer-')
  const packed = JSON.parse(await run('npm', ['pack', '--pack-destination', dir, '--json', '--ignore-scripts']))
  const tarball = join(dir, packed[0].filename)
  /** @param {string} name */
  const version = (name) => JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
  await run(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      tarball,
      `vitest@${version('vitest')}`,
      `msw@${version('msw')}`,
    ],
    { cwd: dir },
  )

  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const snippet = readme.slice(readme.indexOf('## In your tests')).match(/```ts\n([\s\S]*?)```/)?.[1]
  if (!snippet) throw new Error('No ```ts snippet under "## In your tests" in README.md.')
  const test = snippet.slice(snippet.indexOf('\nit('))
  const bare = `import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'

const body = ${JSON.stringify(body)}
const server = setupServer(http.get('https://api.example.com/v1/calls', () => HttpResponse.text(body, { headers: { 'content-type': 'application/json' } })))
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
beforeEach(() => server.resetHandlers())
afterAll(() => server.close())
${test}`
  for (const [suite, source] of [
    ['suite-sandbox', snippet],
    ['suite-msw', bare],
  ]) {
    mkdirSync(join(dir, suite))
    for (let i = 1; i <= 9; i++) writeFileSync(join(dir, suite, `calls-${i}.test.ts`), source)
  }
  /** @param {string} suite */
  const vitest = async (suite) => {
    const start = performance.now()
    await run('npx', ['vitest', 'run', suite], { cwd: dir, env: { ...process.env, CI: '1', NO_COLOR: '1' } })
    return performance.now() - start
  }
  await vitest('suite-sandbox') // warm-up: vitest's and the files' first load
  await vitest('suite-msw')
  /** @type {number[]} */
  const ours = []
  /** @type {number[]} */
  const theirs = []
  for (let i = 0; i < 3; i++) {
    if (i % 2 === 0) {
      ours.push(await vitest('suite-sandbox'))
      theirs.push(await vitest('suite-msw'))
    } else {
      theirs.push(await vitest('suite-msw'))
      ours.push(await vitest('suite-sandbox'))
    }
  }
  removeTempDir(dir)
  spread('consumer suite, sandbox', ours, seconds)
  spread('consumer suite, bare msw', theirs, seconds)
  row(
    "consumer: npx vitest run, 9 files on the README's setupSandboxServer (packed package), wall time",
    seconds(median(ours)),
    `the same 9 on a bare msw setupServer(http.get) of the same bytes: ${seconds(median(theirs))}`,
    median(ours) / median(theirs),
    ['<=', 1.5],
  )
})
