import { CAPTCHA_TOKEN_FIELD, type CaptchaAction, type CaptchaSettings } from '~/lib/recaptcha'
import { getConfig } from '~/.server/config'
import {
  getIdentity,
  groupOf,
  type AuthCode,
  type RecaptchaConfig,
  type RecaptchaEnforcement,
} from '~/.server/identity'
import { logger } from '~/.server/ops/logger'
import { recordCacheFilled, recordCaptcha } from '~/.server/ops/metrics'

/**
 * The identity project's reCAPTCHA Enterprise configuration (ADR 020): the site key and, per
 * provider, OFF, AUDIT or ENFORCE. Read at start-up, then every 5 minutes in the background; a
 * request never waits for it, except a refused call that finds it OFF (it may be stale: see
 * refreshAfterDemand). Until the first answer, and while the service cannot be asked, the last
 * known configuration (initially all OFF) holds; a failure is logged.
 *
 * It decides what pages get (the script and site key: captchaSettings), what the CSP admits
 * (recaptchaScriptOrigin) and whether a posted token (postedCaptchaToken) is passed on
 * (captchaTokenToSend).
 */

/** Real tokens are about 2 KB; anything much longer is not one. */
const CAPTCHA_TOKEN_MAX_LENGTH = 8192

/**
 * The token a form posted (in `field`: the submission's action's, or extraTokenField's): undefined
 * when the field is absent (no script ran: JavaScript off), '' when the script ran but could not
 * get one, else the token.
 */
export function postedCaptchaToken(form: FormData, field = CAPTCHA_TOKEN_FIELD): string | undefined {
  const value = form.get(field)
  if (value === null) return undefined
  return typeof value === 'string' && value.length <= CAPTCHA_TOKEN_MAX_LENGTH ? value : ''
}

export const RECAPTCHA_REFRESH_MS = 5 * 60_000
/** How long a refused call waits for a fresh configuration before answering with what it has. */
const DEMAND_REFRESH_WAIT_MS = 2_000

const OFF: RecaptchaConfig = { recaptchaKey: null, siteKey: null, emailPassword: 'OFF', phone: 'OFF' }

/** Which provider's enforcement covers an action, as Identity Platform reads it. */
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

/** Whether some provider is in AUDIT or ENFORCE: pages may then load the script (the CSP admits it). */
export function recaptchaEnforced(): boolean {
  return active(state.config.emailPassword) || active(state.config.phone)
}

export function enforcementFor(action: CaptchaAction): RecaptchaEnforcement {
  return state.config[PROVIDER_OF[action]]
}

/** The origin of RECAPTCHA_SCRIPT_URL while some enforcement is on, else null: for the CSP. */
export function recaptchaScriptOrigin(): string | null {
  return recaptchaEnforced() ? new URL(getConfig().recaptchaScriptUrl).origin : null
}

/** What a page needs to get tokens for this action; null when the action is not protected (or no site key is known). */
export function captchaSettings(action: CaptchaAction): CaptchaSettings | null {
  const { siteKey } = state.config
  if (!siteKey || !active(enforcementFor(action))) return null
  const src = new URL(getConfig().recaptchaScriptUrl)
  src.searchParams.set('render', siteKey)
  return { siteKey, src: src.href }
}

/**
 * The token to pass on with the call: the posted one while the action is protected. While it is
 * OFF none is sent, as Firebase's SDK does (and the emulator answers 501 to any token).
 */
export function captchaTokenToSend(action: CaptchaAction, posted: string | undefined): string | undefined {
  return posted && active(enforcementFor(action)) ? posted : undefined
}

/**
 * The action is in ENFORCE and the form posted no token (no JavaScript): the service would refuse
 * the call. Depends on the project's setting alone, never on what was typed.
 */
export function captchaTokenMissing(action: CaptchaAction, posted: string | undefined): boolean {
  return !posted && enforcementFor(action) === 'ENFORCE'
}

/** What the service answers when a captcha token is missing or not good for this call (the 'captcha' group). */
export function isCaptchaRefusal(code: AuthCode | null): boolean {
  return groupOf(code) === 'captcha'
}

/**
 * Counts one protected call in portal_captcha_total{action,outcome}: `passed` (a token went and
 * the service took the call), `refused` (a token went and was refused: invalid, expired, another
 * action), `missing` (none went and the service demanded one), `absent` (none went and none was
 * needed: AUDIT without JavaScript). Calls made while the action is OFF and nothing was demanded
 * are not counted.
 */
export function recordCaptchaOutcome(action: CaptchaAction, sent: boolean, code: AuthCode | null): void {
  const refusal = isCaptchaRefusal(code)
  if (!sent && !refusal && !active(enforcementFor(action))) return
  recordCaptcha(action, sent ? (refusal ? 'refused' : 'passed') : refusal ? 'missing' : 'absent')
}

/**
 * The service demanded a token while our configuration says the action is OFF (or no site key
 * is known): enforcement was turned on since we last asked. Asks again now, waiting at most 2 s,
 * so that this answer can already hand the page the script and site key.
 */
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

/** Asks the identity service once (concurrent callers share the call); resolves recaptchaEnforced() afterwards. */
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
