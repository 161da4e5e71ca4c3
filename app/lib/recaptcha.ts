/**
 * reCAPTCHA Enterprise as Identity Platform enforces it (ADR 020), what both sides share. The
 * action names are the ones Firebase's own SDK binds its tokens to: the service refuses a token
 * made for another action (INVALID_RECAPTCHA_ACTION).
 */
export type CaptchaAction = 'signInWithPassword' | 'signUpPassword' | 'getOobCode' | 'mfaSmsSignIn' | 'mfaSmsEnrollment'

/** What a page needs to get tokens: the site key and the script's URL (`…/enterprise.js?render=SITE_KEY`). */
export interface CaptchaSettings {
  siteKey: string
  src: string
}

/**
 * The form field that carries the token; only the page's script adds it (a form posted without
 * JavaScript has none). The server reads it with postedCaptchaToken (app/.server/policy/recaptcha.ts).
 */
export const CAPTCHA_TOKEN_FIELD = 'g-recaptcha-response'

/**
 * Where a form posts a token for a further action one submission may lead to: a sign-up for an
 * address that has an account sends its owner a reset email, which the service protects as getOobCode.
 */
export const extraTokenField = (action: CaptchaAction) => `${CAPTCHA_TOKEN_FIELD}-${action}`
