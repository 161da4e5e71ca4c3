/**
 * reCAPTCHA Enterprise as Identity Platform enforces it (ADR 020), what both sides share. The
 * action names are the ones Firebase's own SDK binds its tokens to: the service refuses a token
 * made for another action (INVALID_RECAPTCHA_ACTION).
 */
export type CaptchaAction = 'signInWithPassword' | 'getOobCode' | 'mfaSmsSignIn' | 'mfaSmsEnrollment'

/** What a page needs to get tokens: the site key and the script's URL (`…/enterprise.js?render=SITE_KEY`). */
export interface CaptchaSettings {
  siteKey: string
  src: string
}

/** The form field that carries the token; only the page's script adds it (a form posted without JavaScript has none). */
export const CAPTCHA_TOKEN_FIELD = 'g-recaptcha-response'

/** Real tokens are about 2 KB; anything much longer is not one. */
export const CAPTCHA_TOKEN_MAX_LENGTH = 8192

/**
 * The token a form posted: undefined when the field is absent (no script ran: JavaScript off),
 * '' when the script ran but could not get one, else the token.
 */
export function postedCaptchaToken(form: FormData): string | undefined {
  const value = form.get(CAPTCHA_TOKEN_FIELD)
  if (value === null) return undefined
  return typeof value === 'string' && value.length <= CAPTCHA_TOKEN_MAX_LENGTH ? value : ''
}
