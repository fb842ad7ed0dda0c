import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { MSW3_VERSION } from '../../scripts/msw3.mjs'
import { consumerProject, devVersion, readmeSnippet, type ConsumerProject } from './consumerProject.js'

/*
 * A consumer's vitest suite against the packed package, with the lowest and
 * the newest msw 2 the package claims as its peer on this Node, and msw 3 on
 * Node 24: the README's snippet, and the consumer's own msw (setupServer,
 * setupWorker, server.use) over the sandbox's handlers.
 */

const tarball = inject('tarball')
const LOWEST = devVersion('msw-lowest')
const NEWEST = devVersion('msw')
const MSW_3 = MSW3_VERSION

const ownServer = `
import { createSandbox } from 'call-sandbox'
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'

const sandbox = createSandbox({ seed: 1, now: '2026-11-20T12:00:00Z', baseUrl: 'https://api.example.com' })
const server = setupServer(...sandbox.handlers)
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
afterEach(() => server.resetHandlers())
afterAll(() => server.close())
const me = () => fetch('https://api.example.com/v1/me', { headers: { Authorization: 'Bearer sk_sandbox_all' } })

it('answers with the sandbox through the consumer\\'s own setupServer', async () => {
  const body = await (await me()).json()
  expect(body.data.organization_id).toBeTypeOf('string')
})

it('lets an override put in front with server.use win, and the sandbox answer again after resetHandlers', async () => {
  server.use(http.get('https://api.example.com/v1/me', () => HttpResponse.json({ overridden: true }, { status: 418 })))
  const overridden = await me()
  expect(overridden.status).toBe(418)
  expect(await overridden.json()).toEqual({ overridden: true })
  server.resetHandlers()
  expect((await me()).status).toBe(200)
})
`

const typed = `
import { createSandbox } from 'call-sandbox'
import { setupSandboxServer } from 'call-sandbox/node'
import { setupWorker } from 'msw/browser'
import { setupServer } from 'msw/node'

const sandbox = createSandbox({ seed: 1 })
export const worker = setupWorker(...sandbox.handlers)
export const server = setupServer(...sandbox.handlers)
export const wrapped = setupSandboxServer().server.listHandlers()
`

/**
 * @note msw 2.11.0's own declarations (@mswjs/interceptors' WebSocket) do not check against TypeScript 6's DOM types:
 * its row skips library checks.
 */
/** A mistake the type check must catch: the sandbox itself where its handlers go. */
const wrong = `
import { createSandbox } from 'call-sandbox'
import { setupServer } from 'msw/node'

export const server = setupServer(createSandbox())
`

describe.each([
  ['the lowest msw 2 the package claims', LOWEST, true, undefined],
  ['the newest msw 2', NEWEST, false, undefined],
  ['msw 3 on Node 24', MSW_3, false, inject('node24')],
])('a vitest consumer with %s (%s)', (_, msw, skipLibCheck, node) => {
  let consumer: ConsumerProject
  beforeAll(async () => {
    consumer = await consumerProject(
      tarball,
      [
        `msw@${msw}`,
        `vitest@${devVersion('vitest')}`,
        `typescript@${devVersion('typescript')}`,
        `@types/node@${devVersion('@types/node')}`,
      ],
      {
        'readme.test.ts': readmeSnippet('## In your tests'),
        'own-server.test.ts': ownServer,
        'typed.ts': typed,
        'tsconfig.json': JSON.stringify({
          compilerOptions: {
            strict: true,
            module: 'nodenext',
            moduleResolution: 'nodenext',
            target: 'es2022',
            lib: ['es2022', 'dom'],
            noEmit: true,
            skipLibCheck,
            types: ['node'],
          },
          files: ['typed.ts'],
        }),
        'tsconfig.wrong.json': JSON.stringify({ extends: './tsconfig.json', files: ['wrong.ts'] }),
        'wrong.ts': wrong,
      },
      { type: 'module' },
      node,
    )
  }, 180_000)
  afterAll(() => consumer?.remove())

  it("installs that msw, on the Node it names, and the package uses the consumer's own", async () => {
    expect((await consumer.stdout('node', ['--version'])).trim()).toBe(
      node ? execFileSync(node, ['--version'], { encoding: 'utf8' }).trim() : process.version,
    )
    expect(JSON.parse(await consumer.stdout('npm', ['ls', 'msw', '--json'])).dependencies.msw.version).toBe(msw)
    // @note Only what call-sandbox resolves: vitest 4 brings an msw 2 of its own (its mocker's peer) beside msw 3.
    const fromPackage = "console.log(createRequire(import.meta.resolve('call-sandbox')).resolve('msw/package.json'))"
    const resolved = await consumer.stdout('node', [
      '--input-type=module',
      '-e',
      `import { createRequire } from 'node:module'; ${fromPackage}`,
    ])
    expect(resolved.trim()).toBe(`${consumer.folder}/node_modules/msw/package.json`)
  })

  it("runs the README's snippet and the consumer's own setupServer with server.use overrides", async () => {
    const output = await consumer.run('npx', ['vitest', 'run'])
    expect(output).toMatch(/Tests\s+3 passed \(3\)/)
  }, 120_000)

  it(`type-checks the sandbox's handlers in the consumer's setupWorker and setupServer (strict${skipLibCheck ? '' : ', no skipLibCheck'})`, async () => {
    await consumer.run('npx', ['tsc', '-p', '.'])
    await expect(consumer.run('npx', ['tsc', '-p', 'tsconfig.wrong.json'])).rejects.toThrow(/error TS2345/)
  }, 120_000)
})
