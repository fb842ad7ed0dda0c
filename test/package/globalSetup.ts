import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The package as `npm pack` makes it (its `prepare` builds it first). */
    tarball: string
  }
}

const ROOT = resolve(import.meta.dirname, '../..')

export default function setup(project: TestProject): () => void {
  const folder = mkdtempSync(join(tmpdir(), 'call-sandbox-pack-'))
  execFileSync('npm', ['pack', '--pack-destination', folder, '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] })
  const [tarball] = readdirSync(folder).filter((name) => name.endsWith('.tgz'))
  project.provide('tarball', join(folder, tarball!))
  return () => rmSync(folder, { recursive: true, force: true })
}
