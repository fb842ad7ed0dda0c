import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { TestProject } from 'vitest/node'
import { installMsw3 } from '../../scripts/msw3.mjs'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The package as `npm pack` makes it (its `prepare` builds it first). */
    tarball: string
    /** A Node 24 binary (scripts/node24.mjs), for the consumers on msw 3, which needs Node 22.12 or later. */
    node24: string
  }
}

const ROOT = resolve(import.meta.dirname, '../..')

export default function setup(project: TestProject): () => void {
  const folder = mkdtempSync(join(tmpdir(), 'call-sandbox-pack-'))
  execFileSync('npm', ['pack', '--pack-destination', folder, '--silent'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const [tarball] = readdirSync(folder).filter((name) => name.endsWith('.tgz'))
  project.provide('tarball', join(folder, tarball!))
  project.provide(
    'node24',
    execFileSync(process.execPath, ['scripts/node24.mjs'], { cwd: ROOT, encoding: 'utf8' }).trim(),
  )
  // msw 3 in npm's cache for the consumers on it, as the project's own install puts msw 2 there.
  installMsw3()
  return () => rmSync(folder, { recursive: true, force: true })
}
