import { setTimeout as sleep } from 'node:timers/promises'
import type { CaptchaAction, CaptchaSettings } from '~/lib/recaptcha'
import { getConfig } from '~/.server/config'
import { logger } from '~/.server/ops/logger'
import { metrics, recordCacheFilled } from '~/.server/ops/metrics'
import { codeOf, groupOf, type AuthCode } from './errors'
import { RECAPTCHA_OFF, type RecaptchaConfig, type RecaptchaEnforcement } from './schemas'

// The project's reCAPTCHA enforcement, as Firebase's SDK keeps it: read at start-up, then every 5 minutes in
// the background; a request never waits for it, except a refused call that finds it OFF. The client sends a
// posted token by it (withCaptcha), and the pages load the script by it (captchaSettings).

const RECAPTCHA_REFRESH_MS = 5 * 60_000
const DEMAND_REFRESH_WAIT_MS = 2_000

const PROVIDER_OF: Record<CaptchaAction, 'emailPassword' | 'phone'> = {
  signInWithPassword: 'emailPassword',
  signUpPassword: 'emailPassword',
  getOobCode: 'emailPassword',
  mfaSmsSignIn: 'phone',
  mfaSmsEnrollment: 'phone',
}

const state = {
  config: RECAPTCHA_OFF,
  refreshing: null as Promise<boolean> | null,
  timer: null as NodeJS.Timeout | null,
}

const active = (enforcement: RecaptchaEnforcement) => enforcement !== 'OFF'

export function recaptchaEnforced(): boolean {
  return active(state.config.emailPassword) || active(state.config.phone)
}

function enforcementFor(action: CaptchaAction): RecaptchaEnforcement {
  return state.config[PROVIDER_OF[action]]
}

/** The script a page loads for an action the project checks. */
export function captchaSettings(action: CaptchaAction): CaptchaSettings | null {
  const { siteKey } = state.config
  if (!siteKey || !active(enforcementFor(action))) return null
  const src = new URL(getConfig().recaptchaScriptUrl)
  src.searchParams.set('render', siteKey)
  return { siteKey, src: src.href }
}

/** Depends on the project's setting alone, never on what was typed; counted as missing when it is. */
export function captchaTokenMissing(action: CaptchaAction, posted: string | undefined): boolean {
  const missing = !posted && enforcementFor(action) === 'ENFORCE'
  if (missing) recordCaptchaOutcome(action, false, 'auth/missing-recaptcha-token')
  return missing
}

export function isCaptchaRefusal(code: AuthCode | null): boolean {
  return code !== null && groupOf(code) === 'captcha'
}

function recordCaptchaOutcome(action: CaptchaAction, sent: boolean, code: AuthCode | null): void {
  const refusal = isCaptchaRefusal(code)
  if (!sent && !refusal && !active(enforcementFor(action))) return
  metrics.captcha.inc({ action, outcome: sent ? (refusal ? 'refused' : 'passed') : refusal ? 'missing' : 'absent' })
}

/**
 * One call that reCAPTCHA protects: the posted token goes only while the project enforces it (as Firebase's SDK
 * does: the emulator answers 501 to any token), the outcome is counted, and a captcha refusal asks the project
 * again before it is thrown, so that the page answering it can already carry the script.
 */
export async function withCaptcha<T>(
  action: CaptchaAction,
  posted: string | undefined,
  send: (captchaResponse: string | undefined) => Promise<T>,
  fetchConfig: () => Promise<RecaptchaConfig>,
): Promise<T> {
  const token = posted && active(enforcementFor(action)) ? posted : undefined
  try {
    const answer = await send(token)
    recordCaptchaOutcome(action, token !== undefined, null)
    return answer
  } catch (error) {
    const code = codeOf(error)
    recordCaptchaOutcome(action, token !== undefined, code)
    if (isCaptchaRefusal(code) && !(state.config.siteKey && active(enforcementFor(action)))) {
      await Promise.race([refreshRecaptcha(fetchConfig), sleep(DEMAND_REFRESH_WAIT_MS, undefined, { ref: false })])
    }
    throw error
  }
}

export function refreshRecaptcha(fetchConfig: () => Promise<RecaptchaConfig>): Promise<boolean> {
  state.refreshing ??= fetchConfig()
    .then(
      (config) => {
        const before = state.config
        state.config = config
        recordCacheFilled('recaptcha')
        if (before.emailPassword !== config.emailPassword || before.phone !== config.phone || before.siteKey !== config.siteKey) {
          const { emailPassword, phone, siteKey } = config
          logger.info({ event: 'recaptcha-config', emailPassword, phone, siteKey }, 'reCAPTCHA enforcement changed')
        }
        return recaptchaEnforced()
      },
      (error: unknown) => {
        logger.warn({ event: 'recaptcha-config-failed', err: error }, 'reCAPTCHA configuration unknown, keeping the last answer')
        return recaptchaEnforced()
      },
    )
    .finally(() => {
      state.refreshing = null
    })
  return state.refreshing
}

export function startRecaptchaRefresh(fetchConfig: () => Promise<RecaptchaConfig>, intervalMs = RECAPTCHA_REFRESH_MS): Promise<boolean> {
  state.timer ??= setInterval(() => void refreshRecaptcha(fetchConfig), intervalMs).unref()
  return refreshRecaptcha(fetchConfig)
}

export function stopRecaptchaRefresh(): void {
  if (state.timer) clearInterval(state.timer)
  state.timer = null
}
