import { readdirSync, readFileSync, statSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { join } from 'node:path'

/** `from 'x'`, `import 'x'`, `import('x')` and `require('x')` of a bare name, minified or not. */
const BARE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\(\s*|\bimport\s+)["']([^"'./][^"']*)["']/g

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}

/**
 * The packages an installed call-sandbox names from its code (ESM, CommonJS, the command's bundle) and its
 * declarations: each a package it may load at run time, or whose types a consumer's compiler reads.
 */
export function packagesNamed(packageFolder: string): string[] {
  const named = new Set<string>()
  for (const folder of ['dist/esm', 'dist/cjs', 'dist/bin', 'dist/src']) {
    for (const file of filesUnder(join(packageFolder, folder)).filter((path) => /\.(c?js|d\.ts)$/.test(path))) {
      for (const [, specifier] of readFileSync(file, 'utf8').matchAll(BARE_IMPORT)) {
        if (specifier!.startsWith('node:') || builtinModules.includes(specifier!)) continue
        const parts = specifier!.split('/')
        named.add(specifier!.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!)
      }
    }
  }
  return [...named].sort()
}
