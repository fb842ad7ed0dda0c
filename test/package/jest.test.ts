import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { consumerProject, devVersion, readmeSnippet, type ConsumerProject } from './consumerProject.js'

/*
 * jest 30 in its default CommonJS set-up, the README's snippet required.
 * @note With msw 2.11.0, the lowest the package claims: later msw 2 releases
 * depend on ES-module-only packages (until-async, rettime) that jest cannot
 * require on Node before 24.9, with or without call-sandbox (see the README).
 */

const tarball = inject('tarball')
const MSW = devVersion('msw-lowest')
/**
 * @note Not a dev dependency of this repository: jest's resolver (unrs-resolver)
 * names a binding per platform, and npm ci refuses a lock file that lacks the
 * ones this machine's registry does not carry; `npm install` in the consumer
 * project skips them.
 */
const JEST = '30.5.2'

/** The README's vitest snippet as a jest user writes it: require, and jest's globals. */
const snippet = readmeSnippet('## In your tests (vitest, jest)')
  .replace("import { setupSandboxServer } from 'call-sandbox/node'", "const { setupSandboxServer } = require('call-sandbox/node')")
  .replace(/^import .* from 'vitest'\n/m, '')

describe(`a jest consumer (CommonJS, msw ${MSW})`, () => {
  let consumer: ConsumerProject
  beforeAll(async () => {
    consumer = await consumerProject(tarball, [`msw@${MSW}`, `jest@${JEST}`], {
      'readme.test.js': snippet,
    })
  }, 180_000)
  afterAll(() => consumer?.remove())

  it("runs the README's snippet", async () => {
    expect(snippet).toContain("require('call-sandbox/node')")
    expect(snippet).not.toContain('import ')
    // jest's cache goes in the project, removed with it (by default it is <tmp>/jest_<uid>, left behind).
    const output = await consumer.run('npx', ['jest', '--ci', '--cacheDirectory', join(consumer.folder, '.jest-cache')])
    expect(output).toMatch(/Tests:\s+1 passed, 1 total/)
  }, 120_000)
})
