// Makes every later import of 'msw' and 'msw/...' resolve to msw 3 (installed apart by scripts/msw3.mjs), the
// built package's own imports included, as CALL_SANDBOX_MSW=3 does for the tests in vitest.config.ts: each is
// resolved as if made from msw 3's own folder. For a child process of the bench, on Node 24 (msw 3 needs 22.12 or
// later):
//
//   node24 --import ./bench/msw3.mjs bench/baselines.mjs in-process
import module from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { installMsw3 } from '../scripts/msw3.mjs'

const FROM_MSW3 = pathToFileURL(join(installMsw3(), '../../package.json')).href

// registerHooks is Node 22.15's (the @types/node of the project are Node 20's): this file runs on Node 24 only.
/** @type {(hooks: { resolve(specifier: string, context: { parentURL?: string }, nextResolve: (specifier: string, context: { parentURL?: string }) => unknown): unknown }) => void} */
const registerHooks = /** @type {any} */ (module).registerHooks

registerHooks({
  resolve(specifier, context, nextResolve) {
    return nextResolve(specifier, /^msw(\/.*)?$/.test(specifier) ? { ...context, parentURL: FROM_MSW3 } : context)
  },
})
