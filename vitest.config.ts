import { configDefaults, defineConfig } from 'vitest/config'

/**
 * `CALL_SANDBOX_MSW=lowest` runs the suite against the lowest msw the package
 * claims as its peer (the `msw-lowest` dev dependency, an alias of that
 * version): every import of msw, the package's own and the server's
 * middleware's, then resolves to it.
 */
const lowestMsw = process.env.CALL_SANDBOX_MSW === 'lowest'

export default defineConfig({
  resolve: lowestMsw ? { alias: [{ find: /^msw(\/.*)?$/, replacement: 'msw-lowest$1' }] } : {},
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The packed package's checks run apart (npm run test:package); the Storybook
    // entry needs msw 2.15 (StoryHandler.test.ts checks its refusal of older ones).
    exclude: [...configDefaults.exclude, 'test/package/**', ...(lowestMsw ? ['src/storybook/sandboxParameters.test.ts'] : [])],
    globalSetup: ['test/support/leftovers.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    server: lowestMsw ? { deps: { inline: ['@mswjs/http-middleware'] } } : {},
  },
})
