// msw 3 for the runs that use it (npm run test:msw3, CALL_SANDBOX_MSW=3 npm run test:e2e, the package tests, the
// bench), installed from scripts/msw3/'s lock into node_modules/.cache/msw3-<version>, apart from the project's
// own install: msw 3 and two of its dependencies need Node 22, and as a dev dependency (an `msw3` alias) every
// `npm ci` on Node 20 warned EBADENGINE for them. Run alone, it prints the folder of msw 3's package.
//
//   node scripts/msw3.mjs   # → …/node_modules/.cache/msw3-3.0.5/node_modules/msw
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'

const LOCKED = fileURLToPath(new URL('./msw3/', import.meta.url))

/** The msw 3 the runs use: the one version scripts/msw3/package.json names. */
export const MSW3_VERSION = JSON.parse(readFileSync(`${LOCKED}package.json`, 'utf8')).dependencies.msw

const folder = fileURLToPath(new URL(`../node_modules/.cache/msw3-${MSW3_VERSION}`, import.meta.url))

/** Installs msw 3 unless it is there already, and returns the folder of its package. */
export function installMsw3() {
  const msw = `${folder}/node_modules/msw`
  // The registry sometimes drops a connection mid-body: three tries. Each in a folder of its own, renamed into
  // place when whole, so that a run in another worktree (the cache is shared) never sees half an install.
  for (let attempt = 1; attempt <= 3 && !existsSync(`${msw}/package.json`); attempt++) {
    const staging = `${folder}.${process.pid}`
    try {
      mkdirSync(staging, { recursive: true })
      for (const file of ['package.json', 'package-lock.json']) copyFileSync(`${LOCKED}${file}`, `${staging}/${file}`)
      // --loglevel=error: on Node 20 (the e2e and package tests' set-up) npm would warn EBADENGINE here too.
      execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
        cwd: staging,
        stdio: ['ignore', 'ignore', 'inherit'],
      })
      if (!existsSync(folder)) renameSync(staging, folder)
    } catch (error) {
      if (attempt === 3) throw error
    } finally {
      rmSync(staging, { recursive: true, force: true })
    }
  }
  const { version } = JSON.parse(readFileSync(`${msw}/package.json`, 'utf8'))
  if (version !== MSW3_VERSION) throw new Error(`${msw} is msw ${version}, not ${MSW3_VERSION}: remove ${folder}.`)
  return msw
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) console.log(installMsw3())
