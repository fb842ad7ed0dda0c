import { defineConfig } from 'vitest/config'

/** The browser tests (`npm run test:e2e`): the example app and its Storybook in Debian's chromium. */
export default defineConfig({
  test: {
    include: ['e2e/**/*.e2e.ts'],
    globalSetup: ['test/support/leftovers.ts', 'e2e/globalSetup.ts'],
    // One browser at a time: the builds and chromium share two cores.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
