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
}

/**
 * The portal a whole test run shares (Playwright's and vitest's integration project), with
 * SHARED_SETTINGS. A portal that does not start stops the emulator: no teardown follows a failed set-up.
 */
export function startSharedPortal(
  emulator: { host: string; projectId: string; stop(): Promise<unknown> },
  options: { echo?: boolean } = {},
): Promise<Portal> {
  return startPortal(
    {
      FIREBASE_AUTH_EMULATOR_HOST: emulator.host,
      FIREBASE_PROJECT_ID: emulator.projectId,
      ...SHARED_SETTINGS,
    },
    options,
  ).catch(async (error: unknown) => {
    await emulator.stop()
    throw error
  })
}
