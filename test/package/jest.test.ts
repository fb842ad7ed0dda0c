import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { MSW3_VERSION } from '../../scripts/msw3.mjs'
import { consumerProject, devVersion, readmeSnippet, type ConsumerProject } from './consumerProject.js'

/*
 * jest 30 in its default CommonJS set-up, the README's snippet required.
 * @note With msw 2.11.0, the lowest the package claims: later msw 2 releases
 * depend on ES-module-only packages (until-async, rettime) that jest cannot
 * require on Node before 24.9, with or without call-sandbox (see the README).
 * msw 3 is ES modules only: jest requires it on Node 24.9 and later, with
 * NODE_OPTIONS=--experimental-vm-modules (jest's require of ES modules).
 */

const tarball = inject('tarball')
/**
 * @note Not a dev dependency of this repository: jest's resolver (unrs-resolver)
 * names a binding per platform, and npm ci refuses a lock file that lacks the
 * ones this machine's registry does not carry; `npm install` in the consumer
 * project skips them.
 */
const JEST = '30.5.2'

/** The README's vitest snippet as a jest user writes it: require, and jest's globals. */
const snippet = readmeSnippet('## In your tests')
  .replace(
    "import { setupSandboxServer } from 'call-sandbox/node'",
    "const { setupSandboxServer } = require('call-sandbox/node')",
  )
  .replace(/^import .* from 'vitest'\n/m, '')

describe.each([
  { msw: devVersion('msw-lowest'), on: `Node ${process.version}`, node: undefined, nodeOptions: '' },
  {
    msw: MSW3_VERSION,
    on: 'Node 24, --experimental-vm-modules',
    node: inject('node24'),
    nodeOptions: '--experimental-vm-modules',
  },
])('a jest consumer (CommonJS, msw $msw, $on)', ({ msw, node, nodeOptions }) => {
  let consumer: ConsumerProject
  beforeAll(async () => {
    consumer = await consumerProject(tarball, [`msw@${msw}`, `jest@${JEST}`], { 'readme.test.js': snippet }, {}, node)
  }, 180_000)
  afterAll(() => consumer?.remove())

  it("runs the README's snippet", async () => {
    expect(snippet).toContain("require('call-sandbox/node')")
    expect(snippet).not.toContain('import ')
    // jest's cache goes in the project, removed with it (by default it is <tmp>/jest_<uid>, left behind).
    const jest = ['npx', 'jest', '--ci', '--cacheDirectory', join(consumer.folder, '.jest-cache')]
    const output = await consumer.run('env', [`NODE_OPTIONS=${nodeOptions}`, ...jest])
    expect(output).toMatch(/Tests:\s+1 passed, 1 total/)
  }, 120_000)
})
