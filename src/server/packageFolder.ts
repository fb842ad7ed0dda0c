import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * A folder of the package (`console`, `dist/docs`), found by a file it holds; `undefined` when it is missing.
 * @note Looked for upwards from this module, which runs from `src/server/`, `dist/esm/`, `dist/esm/chunks/` or
 * `dist/cjs/` depending on who loads it.
 *
 * @example
 * packageFolder('console', 'console.js')
 */
export function packageFolder(path: string, marker: string): string | undefined {
  for (let folder = dirname(fileURLToPath(import.meta.url)); ; folder = dirname(folder)) {
    const candidate = join(folder, path)
    if (existsSync(join(candidate, marker))) return candidate
    if (dirname(folder) === folder) return undefined
  }
}
