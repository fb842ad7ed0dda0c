import { createRequire } from 'node:module'
import { join } from 'node:path'
import { configDefaults, defineConfig, type Plugin } from 'vitest/config'
import { installMsw3 } from './scripts/msw3.mjs'

/**
 * `CALL_SANDBOX_MSW=lowest` runs the suite against the lowest msw the package
 * claims as its peer (the `msw-lowest` dev dependency, an alias of that
 * version), `CALL_SANDBOX_MSW=3` against msw 3 (installed apart by
 * scripts/msw3.mjs: it needs Node 22.12 or later): every import of msw then
 * resolves to it.
 */
const MSW_VARIANTS = ['lowest', '3']
const mswVariant = process.env.CALL_SANDBOX_MSW
if (mswVariant !== undefined && !MSW_VARIANTS.includes(mswVariant))
  throw new Error(`CALL_SANDBOX_MSW=${mswVariant}: expected one of ${MSW_VARIANTS.join(', ')}.`)
const lowestMsw = mswVariant === 'lowest'
const MSW = /^msw(\/.*)?$/

/**
 * Every import of msw, the built package's too, resolved as Node would resolve it from msw 3's own folder (whose
 * exports all have a `default`). Vite's resolver, asked for the same from there, found the project's msw 2.
 */
function msw3(): Plugin {
  const fromMsw3 = createRequire(join(installMsw3(), '../../package.json'))
  return {
    name: 'call-sandbox:msw-3',
    enforce: 'pre',
    resolveId: (source) => (MSW.test(source) ? fromMsw3.resolve(source) : null),
  }
}

export default defineConfig({
  plugins: mswVariant === '3' ? [msw3()] : [],
  resolve: lowestMsw ? { alias: [{ find: MSW, replacement: 'msw-lowest$1' }] } : {},
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The packed package's checks run apart (npm run test:package); the Storybook
    // entry needs msw 2.15 (StoryHandler.test.ts checks its refusal of older ones).
    exclude: [
      ...configDefaults.exclude,
      'test/package/**',
      // Servers over a Redis store run apart (npm run test:fleet): npm test needs no Redis.
      'test/fleet/**',
      // The sandbox without the package runs apart (npm run test:anywhere): it needs the single executable built.
      'test/anywhere/**',
      ...(lowestMsw ? ['src/storybook/sandboxParameters.test.ts', 'src/storybook/StoryHandler.reset.test.ts'] : []),
      // The README's set-up spells msw 2's option, the testing guide's other one msw 3's: each runs on its own msw.
      mswVariant === '3' ? 'test/readme.test.ts' : 'test/snippets/msw3.test.ts',
    ],
    globalSetup: ['test/support/leftovers.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
