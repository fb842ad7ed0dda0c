import { defineConfig } from 'vitest/config'

/**
 * The sandbox without the package (`npm run test:anywhere`, after `npm run build` and `npm run build:sea`): the one
 * file under `node` alone, the single executable under `env -i`, the Dockerfile's contents laid out in a folder, and
 * the Python example against the one file.
 */
export default defineConfig({
  test: {
    include: ['test/anywhere/**/*.test.ts'],
    globalSetup: ['test/support/leftovers.ts'],
    // Each test starts programs of its own, some several: one file at a time on two cores.
    fileParallelism: false,
    testTimeout: 60_000,
  },
})
