import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { startPortal, type Portal } from '../../dev/portal'

/**
 * The shared portal's settings: the default ones but for the per-address limits,
 * since every test comes from 127.0.0.1 and those limits would trip across unrelated tests. The
 * limits themselves are tested on portals of their own.
 */
export const SHARED_SETTINGS = {
  RATE_LIMIT_SIGNIN_PER_IP: '10000',
  RATE_LIMIT_RESET_PER_IP: '10000',
  RATE_LIMIT_NEW_PASSWORD_PER_IP: '10000',
  RATE_LIMIT_MFA_PER_IP: '10000',
  RATE_LIMIT_MFA_SMS_PER_IP: '10000',
  RATE_LIMIT_ENROL_PER_IP: '10000',
  RATE_LIMIT_LOGOUT_PER_IP: '10000',
}

/**
 * The browser tests' portals ask "Confirm it's you" even right after signing in (RECENT_SIGN_IN_SECONDS=0),
 * so that the specs of the account pages meet it; the default (5 minutes) has specs of its own
 * (tests/e2e/sessions.spec.ts) and the integration tests.
 */
export const BROWSER_TEST_SETTINGS = { ...SHARED_SETTINGS, RECENT_SIGN_IN_SECONDS: '0' }

/**
 * The portal a whole test run shares (Playwright's and vitest's integration project), with
 * SHARED_SETTINGS. A portal that does not start stops the emulator: no teardown follows a failed set-up.
 */
export async function startSharedPortal(
  emulator: { host: string; projectId: string; stop(): Promise<unknown> },
  options: { echo?: boolean; settings?: Record<string, string> } = {},
): Promise<Portal & { sessionStorePath: string }> {
  // A file, so that a test can open a session of its own making in it (tests/support/session-cookie.ts).
  const sessionStorePath = path.join(mkdtempSync(path.join(tmpdir(), 'portal-sessions-')), 'sessions.sqlite')
  const portal = await startPortal(
    {
      FIREBASE_AUTH_EMULATOR_HOST: emulator.host,
      FIREBASE_PROJECT_ID: emulator.projectId,
      SESSION_STORE_PATH: sessionStorePath,
      ...SHARED_SETTINGS,
      ...options.settings,
    },
    options,
  ).catch(async (error: unknown) => {
    await emulator.stop()
    throw error
  })
  return Object.assign(portal, { sessionStorePath })
}
