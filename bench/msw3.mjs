// Makes every later import of 'msw' and 'msw/...' resolve to msw 3 (the
// `msw3` dev dependency, an alias of msw@3), the built package's own imports
// included, as CALL_SANDBOX_MSW=3 does for the tests in vitest.config.ts.
// For a child process of the bench, on Node 24 (msw 3 needs 22.12 or later):
//
//   node24 --import ./bench/msw3.mjs bench/baselines.mjs in-process
import module from 'node:module'

// registerHooks is Node 22.15's (the @types/node of the project are Node 20's): this file runs on Node 24 only.
/** @type {(hooks: { resolve(specifier: string, context: unknown, nextResolve: (specifier: string, context: unknown) => unknown): unknown }) => void} */
const registerHooks = /** @type {any} */ (module).registerHooks

registerHooks({
  resolve(specifier, context, nextResolve) {
    const msw = /^msw(\/.*)?$/.exec(specifier)
    return nextResolve(msw ? `msw3${msw[1] ?? ''}` : specifier, context)
  },
})
