import { existsSync } from 'node:fs'
import type { FullConfig } from '@playwright/test'
import { execSync } from 'node:child_process'
import { testEmulator } from '../../dev/emulator'
import { SERVER_ENTRY } from '../../dev/portal'
import { BROWSER_TEST_SETTINGS, startSharedPortal } from '../support/shared-portal'

/**
 * One emulator and one portal (the production build) for the whole Playwright run, on free
 * ports. Their addresses reach the workers through the environment.
 */
export default async function globalSetup(config: FullConfig) {
  // The browser playwright.config.ts names: a missing one fails the run, never a download.
  const chromium = config.projects[0]?.use.launchOptions?.executablePath
  if (!chromium || !existsSync(chromium)) {
    throw new Error(`Chromium's headless shell is missing: install it with \`apt-get install chromium-headless-shell\` (${chromium ?? 'no executablePath'})`)
  }
  if (!existsSync(SERVER_ENTRY) || process.env.E2E_BUILD === '1') execSync('npm run build', { stdio: 'inherit' })
  const emulator = await testEmulator()
  const portal = await startSharedPortal(emulator, { echo: process.env.E2E_ECHO === '1', settings: BROWSER_TEST_SETTINGS })
  process.env.PORTAL_URL = portal.url
  process.env.EMULATOR_ORIGIN = emulator.origin
  process.env.EMULATOR_PROJECT_ID = emulator.projectId
  return async () => {
    await portal.stop()
    await emulator.stop()
  }
}
