import { existsSync } from 'node:fs'
import { execSync } from 'node:child_process'
import { startEmulator } from '../../dev/emulator'
import { SERVER_ENTRY, startPortal } from '../../dev/portal'

/**
 * One emulator and one portal (the production build) for the whole Playwright run, on free
 * ports. Their addresses reach the workers through the environment.
 */
export default async function globalSetup() {
  if (!existsSync('/usr/bin/chromium')) {
    throw new Error('Chromium is missing: install it with `apt-get install chromium` (/usr/bin/chromium)')
  }
  if (!existsSync(SERVER_ENTRY) || process.env.E2E_BUILD === '1') execSync('npm run build', { stdio: 'inherit' })
  const emulator = await startEmulator()
  // A portal that does not start must not leave the emulator running: no teardown follows a failed set-up.
  const portal = await startPortal({
    FIREBASE_AUTH_EMULATOR_HOST: emulator.host,
    FIREBASE_PROJECT_ID: emulator.projectId,
    // Every test comes from 127.0.0.1: per-address limits would trip across unrelated tests.
    // The limits themselves are tested on portals of their own.
    RATE_LIMIT_SIGNIN_PER_IP: '10000',
    RATE_LIMIT_RESET_PER_IP: '10000',
    RATE_LIMIT_NEW_PASSWORD_PER_IP: '10000',
    RATE_LIMIT_MFA_PER_IP: '10000',
  }, { echo: process.env.E2E_ECHO === '1' }).catch(async (error: unknown) => {
    await emulator.stop()
    throw error
  })
  process.env.PORTAL_URL = portal.url
  process.env.EMULATOR_ORIGIN = emulator.origin
  process.env.EMULATOR_PROJECT_ID = emulator.projectId
  return async () => {
    await portal.stop()
    await emulator.stop()
  }
}
