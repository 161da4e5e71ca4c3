import { defineConfig } from 'vitest/config'
import path from 'node:path'

/**
 * Two projects. `unit`: the tests beside the code, which start nothing (no emulator, server or
 * child process); `npm run test:unit` runs them alone. `integration`: tests/integration, with one
 * Auth emulator and one default portal for the run (tests/support/vitest-global-setup.ts, ADR 053)
 * and the servers a file starts for settings of its own.
 */
export default defineConfig({
  resolve: { alias: { '~': path.resolve(import.meta.dirname, 'app') } },
  test: {
    env: { PLATFORM: 'test', LOG_LEVEL: 'silent' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['app/**/*.test.{ts,tsx}', 'locales/**/*.test.ts', 'deploy/**/*.test.ts', 'dev/**/*.test.ts', 'docs/**/*.test.ts', 'tests/e2e/**/*.test.ts'],
          // Vitest's default on two cores is one file at a time: 21 s, against 13 s with two.
          maxWorkers: 2,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          globalSetup: ['tests/support/vitest-global-setup.ts'],
          setupFiles: ['tests/support/keep-alive.ts'],
          // Four files at once on two cores: many files wait on the servers they start and the time-outs
          // they provoke (110 s, against 118 s with three and 164 s with two; ADR 046).
          maxWorkers: 4,
        },
      },
    ],
  },
})
