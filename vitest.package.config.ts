import { defineConfig } from 'vitest/config'

/** The package as a consumer gets it (`npm run test:package`): packed, installed in temp projects, checked. */
export default defineConfig({
  test: {
    include: ['test/package/**/*.test.ts'],
    globalSetup: ['test/support/leftovers.ts', 'test/package/globalSetup.ts'],
    // Each file installs projects from npm's cache and runs their tools: one at a time on two cores.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
})
