/**
 * The browser guide's steps for an app that kept msw's worker script in `public/`: once they have run, and once
 * msw's install script has run again (as every `npm install` runs it), the script is in `sandbox-worker/` and not in
 * `public/`, which Vite copies into every build.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { ROOT } from './support/docs.js'

const GUIDE = join(ROOT, 'docs/guides/browser-and-storybook.md')
const MSW = join(ROOT, 'node_modules/msw')

/** The guide's sh block marked as run here. */
function upgradeSteps(): string {
  const block = /<!-- runs in test\/workerUpgrade\.test\.ts -->\n\s*```sh\n([\s\S]*?)\s*```/.exec(
    readFileSync(GUIDE, 'utf8'),
  )
  if (!block) throw new Error('no sh block after `<!-- runs in test/workerUpgrade.test.ts -->` in the browser guide')
  return block[1]!.replace(/^ +/gm, '')
}

let app: string
beforeAll(() => {
  // An app as the guide set it up before: `npx msw init public --save`, with this repository's msw installed.
  app = mkdtempSync(join(tmpdir(), 'call-sandbox-worker-upgrade-'))
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'app', private: true, msw: { workerDirectory: ['public'] } }),
  )
  mkdirSync(join(app, 'node_modules/.bin'), { recursive: true })
  symlinkSync(MSW, join(app, 'node_modules/msw'))
  symlinkSync('../msw/cli/index.js', join(app, 'node_modules/.bin/msw'))
  execFileSync(process.execPath, [join(MSW, 'cli/index.js'), 'init', 'public'], { cwd: app, stdio: 'ignore' })
  expect(existsSync(join(app, 'public/mockServiceWorker.js'))).toBe(true)
})
afterAll(() => app && rmSync(app, { recursive: true, force: true }))

it('leaves the worker script in sandbox-worker/ only, also after msw installs again', () => {
  execFileSync('sh', ['-e', '-c', upgradeSteps()], {
    cwd: app,
    stdio: 'pipe',
    env: { ...process.env, npm_config_offline: 'true' },
  })
  // msw's postinstall, as npm runs it: from msw's folder, the app's folder in INIT_CWD.
  execFileSync(process.execPath, ['config/scripts/postinstall.js'], {
    cwd: MSW,
    env: { ...process.env, INIT_CWD: app },
  })
  expect(existsSync(join(app, 'sandbox-worker/mockServiceWorker.js'))).toBe(true)
  expect(existsSync(join(app, 'public/mockServiceWorker.js'))).toBe(false)
  expect(JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')).msw).toEqual({
    workerDirectory: ['sandbox-worker'],
  })
})
