// The action names are the ones Firebase's SDK binds its tokens
// to: the service refuses a token made for another action.
export type CaptchaAction = 'signInWithPassword' | 'signUpPassword' | 'getOobCode' | 'mfaSmsSignIn' | 'mfaSmsEnrollment'

export interface CaptchaSettings {
  siteKey: string
  src: string
}

/** Only the page's script adds it: a form posted without JavaScript has none. */
export const CAPTCHA_TOKEN_FIELD = 'g-recaptcha-response'

// A sign-up for an address that has an account sends its owner a reset email, which the service protects as getOobCode.
export const extraTokenField = (action: CaptchaAction) => `${CAPTCHA_TOKEN_FIELD}-${action}`
