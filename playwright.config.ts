import { defineConfig } from '@playwright/test'

/**
 * Debian's Chromium, never a downloaded browser: its headless shell, the build of the same Chromium
 * for automation, which Playwright itself runs headless tests in (ADR 057). Every spec runs twice:
 * with JavaScript (the enhanced app) and without it (plain HTML forms), except those tagged below.
 */
const launchOptions = {
  executablePath: '/usr/bin/chromium-headless-shell',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
  ],
}

export default defineConfig({
  testDir: 'tests/e2e',
  // Browser tests only: a `.test.ts` beside them is a unit test of their helpers, for vitest.
  testMatch: '**/*.spec.ts',
  globalSetup: './tests/e2e/global-setup.ts',
  // A spec's tests run one after another in one worker: a spec with a portal of its own starts it once per
  // project, not in each worker (62 portal starts in a run instead of 95, about 0.9 s each; ADR 055).
  fullyParallel: false,
  // One per core: a third worker only took turns with the other two and with the emulator (ADR 046).
  workers: 2,
  forbidOnly: true,
  retries: 0,
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [['list'], ['json']] : [['list']],
  timeout: 30_000,
  use: { launchOptions, locale: 'fr-FR', trace: 'off', screenshot: 'off' },
  projects: [
    // A test tagged @js-only or @no-js-only is about one of the two: it runs in that project alone.
    // One tagged @once makes its own browser context or sends bare HTTP requests, so it would be the
    // same test in both: it runs in `js` alone.
    { name: 'js', use: { javaScriptEnabled: true }, grepInvert: /@no-js-only/ },
    { name: 'no-js', use: { javaScriptEnabled: false }, grepInvert: /@js-only|@once/ },
  ],
})
