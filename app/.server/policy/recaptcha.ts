import { CAPTCHA_TOKEN_FIELD, type CaptchaAction, type CaptchaSettings } from '~/lib/recaptcha'
import { getConfig } from '~/.server/config'
import {
  codeOf,
  getIdentity,
  groupOf,
  type AuthCode,
  type RecaptchaConfig,
  type RecaptchaEnforcement,
} from '~/.server/identity'
import { logger } from '~/.server/ops/logger'
import { recordCacheFilled, recordCaptcha } from '~/.server/ops/metrics'

// Read at start-up, then every 5 minutes in the background: a request never waits
// for it, except a refused call that finds it OFF (see refreshAfterDemand).

/** Real tokens are about 2 KB. */
const CAPTCHA_TOKEN_MAX_LENGTH = 8192

/** undefined: no script ran (JavaScript off); '': the script ran but got no token. */
export function postedCaptchaToken(form: FormData, field = CAPTCHA_TOKEN_FIELD): string | undefined {
  const value = form.get(field)
  if (value === null) return undefined
  return typeof value === 'string' && value.length <= CAPTCHA_TOKEN_MAX_LENGTH ? value : ''
}

export const RECAPTCHA_REFRESH_MS = 5 * 60_000
const DEMAND_REFRESH_WAIT_MS = 2_000

const OFF: RecaptchaConfig = { recaptchaKey: null, siteKey: null, emailPassword: 'OFF', phone: 'OFF' }

const PROVIDER_OF: Record<CaptchaAction, 'emailPassword' | 'phone'> = {
  signInWithPassword: 'emailPassword',
  signUpPassword: 'emailPassword',
  getOobCode: 'emailPassword',
  mfaSmsSignIn: 'phone',
  mfaSmsEnrollment: 'phone',
}

const state = {
  config: OFF,
  timer: null as NodeJS.Timeout | null,
  refreshing: null as Promise<boolean> | null,
}

const active = (enforcement: RecaptchaEnforcement) => enforcement !== 'OFF'

export function recaptchaEnforced(): boolean {
  return active(state.config.emailPassword) || active(state.config.phone)
}

export function enforcementFor(action: CaptchaAction): RecaptchaEnforcement {
  return state.config[PROVIDER_OF[action]]
}

export function recaptchaScriptOrigin(): string | null {
  return recaptchaEnforced() ? new URL(getConfig().recaptchaScriptUrl).origin : null
}

export function captchaSettings(action: CaptchaAction): CaptchaSettings | null {
  const { siteKey } = state.config
  if (!siteKey || !active(enforcementFor(action))) return null
  const src = new URL(getConfig().recaptchaScriptUrl)
  src.searchParams.set('render', siteKey)
  return { siteKey, src: src.href }
}

/** While OFF none is sent, as Firebase's SDK does (the emulator answers 501 to any token). */
function captchaTokenToSend(action: CaptchaAction, posted: string | undefined): string | undefined {
  return posted && active(enforcementFor(action)) ? posted : undefined
}

/** Depends on the project's setting alone, never on what was typed; counted as missing when it is. */
export function captchaTokenMissing(action: CaptchaAction, posted: string | undefined): boolean {
  const missing = !posted && enforcementFor(action) === 'ENFORCE'
  if (missing) recordCaptchaOutcome(action, false, 'auth/missing-recaptcha-token')
  return missing
}

export function isCaptchaRefusal(code: AuthCode | null): boolean {
  return groupOf(code) === 'captcha'
}

function recordCaptchaOutcome(action: CaptchaAction, sent: boolean, code: AuthCode | null): void {
  const refusal = isCaptchaRefusal(code)
  if (!sent && !refusal && !active(enforcementFor(action))) return
  recordCaptcha(action, sent ? (refusal ? 'refused' : 'passed') : refusal ? 'missing' : 'absent')
}

/**
 * One identity call that reCAPTCHA protects: the posted token goes only while the project enforces it,
 * the outcome is counted, and a captcha refusal asks the project's settings again before it is thrown.
 */
export async function withCaptcha<T>(
  action: CaptchaAction,
  posted: string | undefined,
  call: (captchaResponse: string | undefined) => Promise<T>,
): Promise<T> {
  const token = captchaTokenToSend(action, posted)
  try {
    const answer = await call(token)
    recordCaptchaOutcome(action, token !== undefined, null)
    return answer
  } catch (error) {
    const code = codeOf(error)
    recordCaptchaOutcome(action, token !== undefined, code)
    if (isCaptchaRefusal(code)) await refreshAfterDemand(action)
    throw error
  }
}

// Enforcement was turned on since we last asked: ask again now,
// so that this answer can already give the page the script.
export async function refreshAfterDemand(action: CaptchaAction): Promise<void> {
  if (state.config.siteKey && active(enforcementFor(action))) return
  let timer: NodeJS.Timeout | undefined
  await Promise.race([
    refreshRecaptcha(),
    new Promise((resolve) => {
      timer = setTimeout(resolve, DEMAND_REFRESH_WAIT_MS)
    }),
  ])
  clearTimeout(timer)
}

export function refreshRecaptcha(
  fetchConfig: () => Promise<RecaptchaConfig> = () => getIdentity().getRecaptchaConfig(),
): Promise<boolean> {
  state.refreshing ??= fetchConfig()
    .then(
      (config) => {
        const before = state.config
        state.config = config
        recordCacheFilled('recaptcha')
        if (
          before.emailPassword !== config.emailPassword ||
          before.phone !== config.phone ||
          before.siteKey !== config.siteKey
        ) {
          logger.info(
            {
              event: 'recaptcha-config',
              emailPassword: config.emailPassword,
              phone: config.phone,
              siteKey: config.siteKey,
            },
            'reCAPTCHA enforcement changed',
          )
        }
        return recaptchaEnforced()
      },
      (error: unknown) => {
        logger.warn(
          { event: 'recaptcha-config-failed', err: error },
          'reCAPTCHA configuration unknown, keeping the last answer',
        )
        return recaptchaEnforced()
      },
    )
    .finally(() => {
      state.refreshing = null
    })
  return state.refreshing
}

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
