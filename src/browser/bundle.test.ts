import { execFile } from 'node:child_process'
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import { builtinModules } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { build, type Plugin } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/*
 * An app's bundler, given the built package: what `call-sandbox/browser` and
 * `call-sandbox/storybook` bring into a browser bundle. Run after `npm run build`.
 */

const ROOT = resolve(import.meta.dirname, '../..')
const NODE_ONLY_PACKAGES = ['express', 'commander', 'swagger-ui-dist', 'msw/lib/node']
const BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]))

let app: string
beforeAll(async () => {
  app = await mkdtemp(join(tmpdir(), 'call-sandbox-bundle-'))
  await mkdir(join(app, 'node_modules'))
  await symlink(ROOT, join(app, 'node_modules', 'call-sandbox'), 'dir')
})
afterAll(() => rm(app, { recursive: true, force: true }))

/** Bundles `import * from <specifier>` for browsers; the ids of every module it took in. */
async function bundle(specifier: string): Promise<string[]> {
  const entry = join(app, `${specifier.replaceAll('/', '_')}.js`)
  await writeFile(entry, `export * from '${specifier}'\n`)
  const modules: string[] = []
  const collect: Plugin = {
    name: 'collect-module-ids',
    buildEnd() {
      modules.push(...this.getModuleIds())
    },
  }
  await build({
    configFile: false,
    root: app,
    logLevel: 'silent',
    plugins: [collect],
    build: { write: false, minify: false, rolldownOptions: { input: entry } },
  })
  return modules
}

describe('the browser bundle', () => {
  it.each(['call-sandbox/browser', 'call-sandbox/storybook', 'call-sandbox'])(
    'of %s takes in no Node built-in and no Node-only package',
    async (specifier) => {
      const modules = await bundle(specifier)
      expect(modules.some((id) => id.includes('/dist/esm/'))).toBe(true)
      expect(modules.filter((id) => BUILTINS.has(id) || id.includes('browser-external'))).toEqual([])
      expect(modules.filter((id) => NODE_ONLY_PACKAGES.some((name) => id.includes(`/node_modules/${name}/`)))).toEqual(
        [],
      )
      expect(
        modules.filter((id) =>
          /\/dist\/esm\/(node|server)\.js$|\/dist\/esm\/chunks\/startServer-|\/dist\/bin\//.test(id),
        ),
      ).toEqual([])
    },
    60_000,
  )

  it("of call-sandbox/browser has msw/browser's setupWorker", async () => {
    const modules = await bundle('call-sandbox/browser')
    expect(modules.some((id) => id.includes('/node_modules/msw/lib/browser/'))).toBe(true)
  }, 60_000)
})

describe('in Node', () => {
  it('call-sandbox/browser is not exported: use call-sandbox/node', async () => {
    const importing = promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', "await import('call-sandbox/browser')"],
      { cwd: ROOT },
    )
    await expect(importing).rejects.toThrow(/ERR_PACKAGE_PATH_NOT_EXPORTED/)
  })
})
