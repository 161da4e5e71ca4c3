import type { RecaptchaConfig } from './identity'
import { logger } from './observability/logger'
import { operationsIdentity } from './readiness'
import { singleton } from './singleton'

/**
 * Whether the project enforces reCAPTCHA on password sign-in or on SMS (AUDIT or ENFORCE), for the CSP:
 * pages may then load Google's script and frame. The answer is the last one the identity service
 * gave, refreshed in the background every 5 minutes; a request never waits for it. Until the
 * first answer, and while the service cannot be asked, the last known value (initially false) holds.
 */

export const RECAPTCHA_REFRESH_MS = 5 * 60_000

const state = singleton('recaptcha', () => ({
  enforced: false,
  timer: null as NodeJS.Timeout | null,
  refreshing: null as Promise<boolean> | null,
}))

export function recaptchaEnforced(): boolean {
  return state.enforced
}

/** Asks the identity service once (concurrent callers share the call); resolves the value now in force. */
export function refreshRecaptcha(
  fetchConfig: () => Promise<RecaptchaConfig> = () => operationsIdentity().getRecaptchaConfig(),
): Promise<boolean> {
  state.refreshing ??= fetchConfig()
    .then(
      (config) => {
        // Password sign-in, or SMS codes at the second factor (ADR 019), may need Google's script.
        const enforced = config.emailPassword !== 'OFF' || config.phone !== 'OFF'
        if (enforced !== state.enforced)
          logger.info({ event: 'recaptcha-config', enforced }, 'reCAPTCHA enforcement changed')
        state.enforced = enforced
        return enforced
      },
      (error: unknown) => {
        logger.warn(
          { event: 'recaptcha-config-failed', err: error },
          'reCAPTCHA configuration unknown, keeping the last answer',
        )
        return state.enforced
      },
    )
    .finally(() => {
      state.refreshing = null
    })
  return state.refreshing
}

/** Starts the background refresh (first call now); returns the first answer's promise. Idempotent. */
export function startRecaptchaRefresh(intervalMs = RECAPTCHA_REFRESH_MS): Promise<boolean> {
  if (!state.timer) {
    state.timer = setInterval(() => void refreshRecaptcha(), intervalMs)
    state.timer.unref()
  }
  return refreshRecaptcha()
}

export function stopRecaptchaRefresh(): void {
  if (state.timer) clearInterval(state.timer)
  state.timer = null
}
