import { defineConfig } from 'vitest/config'

/**
 * `npm run test:fleet`: servers sharing a Redis store. Each test file starts
 * its own redis-server (test/support/redisServer.ts), so `npm test` needs no
 * Redis; this one needs Debian's redis-server, and fails without it.
 */
export default defineConfig({
  test: {
    include: ['test/fleet/**/*.test.ts'],
    globalSetup: ['test/support/leftovers.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
