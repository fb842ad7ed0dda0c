import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { consumerProject, devVersion, readmeSnippet, type ConsumerProject } from './consumerProject.js'

/*
 * A consumer's vitest suite against the packed package, with the lowest and
 * the newest msw the package claims as its peer: the README's snippet, and the
 * consumer's own msw (setupServer, setupWorker, server.use) over the
 * sandbox's handlers.
 */

const tarball = inject('tarball')
const LOWEST = devVersion('msw-lowest')
const NEWEST = devVersion('msw')

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

/** @note msw 2.11.0's own declarations (@mswjs/interceptors' WebSocket) do not check against TypeScript 6's DOM types: its row skips library checks. */
/** A mistake the type check must catch: the sandbox itself where its handlers go. */
const wrong = `
import { createSandbox } from 'call-sandbox'
import { setupServer } from 'msw/node'

export const server = setupServer(createSandbox())
`

describe.each([
  ['lowest', LOWEST, true],
  ['newest', NEWEST, false],
])('a vitest consumer with the %s msw the package claims (%s)', (_, msw, skipLibCheck) => {
  let consumer: ConsumerProject
  beforeAll(async () => {
    consumer = await consumerProject(
      tarball,
      [`msw@${msw}`, `vitest@${devVersion('vitest')}`, `typescript@${devVersion('typescript')}`, `@types/node@${devVersion('@types/node')}`],
      {
        'readme.test.ts': readmeSnippet('## In your tests (vitest, jest)'),
        'own-server.test.ts': ownServer,
        'typed.ts': typed,
        'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], noEmit: true, skipLibCheck, types: ['node'] }, files: ['typed.ts'] }),
        'tsconfig.wrong.json': JSON.stringify({ extends: './tsconfig.json', files: ['wrong.ts'] }),
        'wrong.ts': wrong,
      },
      { type: 'module' },
    )
  }, 180_000)
  afterAll(() => consumer?.remove())

  it('installs that msw, once', async () => {
    expect(JSON.parse(await consumer.stdout('npm', ['ls', 'msw', '--all', '--json'])).dependencies.msw.version).toBe(msw)
    const tree = await consumer.stdout('npm', ['ls', 'msw', '--all', '--parseable'])
    expect(new Set(tree.trim().split('\n').filter((path) => path.endsWith('/msw')))).toEqual(new Set([`${consumer.folder}/node_modules/msw`]))
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
