/**
 * The project's own install, as `npm ci` makes it on the lowest Node the project claims: no EBADENGINE warning (msw 3,
 * which needs Node 22.12, is installed apart by scripts/msw3.mjs), and no install script npm 11 would call unreviewed
 * (each is allowed or denied in package.json's `allowScripts`).
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from './support/docs.js'

interface LockedPackage {
  name?: string
  version?: string
  engines?: Record<string, string> | string[]
  hasInstallScript?: boolean
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
const locked = Object.entries(
  JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')).packages as Record<string, LockedPackage>,
).filter(([path]) => path !== '')
/** A package's registry name: an alias (`msw-lowest`) is locked with the name it stands for. */
const nameOf = (path: string, entry: LockedPackage) => entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 13)
// npm's own range arithmetic (semver is in the lock through the dev tools; Node has none).
const { minVersion, satisfies } = createRequire(import.meta.url)('semver') as {
  minVersion(range: string): { version: string }
  satisfies(version: string, range: string): boolean
}

describe('npm ci on the lowest Node the project claims', () => {
  const lowest = minVersion(manifest.engines.node).version

  it('claims Node 20.19 or later', () => expect(lowest).toBe('20.19.0'))

  it('installs no package whose engines refuse that Node (npm would warn EBADENGINE)', () => {
    const engines = locked.flatMap(([path, entry]) => {
      const node = Array.isArray(entry.engines) ? undefined : entry.engines?.node
      return node === undefined ? [] : [`${path} (node ${node})`]
    })
    expect(engines.length).toBeGreaterThan(10)
    const refusing = engines.filter((line) => !satisfies(lowest, line.slice(line.indexOf('(node ') + 6, -1)))
    expect(refusing).toEqual([])
  })

  it('locks no msw 3: the runs on it install it apart (scripts/msw3.mjs)', () => {
    const msw3 = locked.filter(([path, entry]) => nameOf(path, entry) === 'msw' && entry.version?.startsWith('3.'))
    expect(msw3).toEqual([])
  })
})

describe("package.json's allowScripts", () => {
  const policy: Record<string, boolean> = manifest.allowScripts
  const scripted = locked.filter(([, entry]) => entry.hasInstallScript).map(([path, entry]) => nameOf(path, entry))

  it('finds the packages with install scripts', () => expect(scripted.length).toBeGreaterThan(0))

  it.each(scripted)('decides on %s, which has an install script', (name) => {
    expect(policy).toHaveProperty([name])
  })

  it('decides on nothing the lock does not hold', () => {
    expect(Object.keys(policy).filter((name) => !scripted.includes(name))).toEqual([])
  })
})
