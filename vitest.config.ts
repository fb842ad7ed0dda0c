import { configDefaults, defineConfig } from 'vitest/config'

/**
 * `CALL_SANDBOX_MSW=lowest` runs the suite against the lowest msw the package
 * claims as its peer (the `msw-lowest` dev dependency, an alias of that
 * version), `CALL_SANDBOX_MSW=3` against msw 3 (the `msw3` dev dependency; it
 * needs Node 22.12 or later): every import of msw then resolves to it.
 */
const MSW_ALIASES: Record<string, string> = { lowest: 'msw-lowest', '3': 'msw3' }
const mswVariant = process.env.CALL_SANDBOX_MSW
const mswAlias = mswVariant === undefined ? undefined : MSW_ALIASES[mswVariant]
if (mswVariant !== undefined && mswAlias === undefined)
  throw new Error(`CALL_SANDBOX_MSW=${mswVariant}: expected one of ${Object.keys(MSW_ALIASES).join(', ')}.`)
const lowestMsw = mswVariant === 'lowest'

export default defineConfig({
  resolve: mswAlias ? { alias: [{ find: /^msw(\/.*)?$/, replacement: `${mswAlias}$1` }] } : {},
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
    ],
    globalSetup: ['test/support/leftovers.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
