import { beforeEach, describe, expect, it, vi } from 'vitest'
import { metrics } from '~/.server/ops/metrics'
import { IdentityError } from './errors'
import { captchaSettings, captchaTokenMissing, refreshRecaptcha, withCaptcha as protect } from './recaptcha'
import type { RecaptchaConfig } from './schemas'

/** The one wrapper every call the identity client sends with a reCAPTCHA token goes through, against a stubbed project setting. */

const getRecaptchaConfig = vi.fn()
const recordCaptcha = vi.spyOn(metrics.captcha, 'inc').mockImplementation(() => undefined)
const withCaptcha = <T>(action: Parameters<typeof protect>[0], posted: string | undefined, send: (token: string | undefined) => Promise<T>) =>
  protect(action, posted, send, getRecaptchaConfig)

const setting = (emailPassword: RecaptchaConfig['emailPassword']): RecaptchaConfig => ({
  recaptchaKey: 'projects/p/keys/site-key',
  siteKey: 'site-key',
  emailPassword,
  phone: 'OFF',
})
const project = (emailPassword: RecaptchaConfig['emailPassword']) => refreshRecaptcha(async () => setting(emailPassword))

describe('withCaptcha', () => {
  beforeEach(() => recordCaptcha.mockClear())

  it('sends no token while the project does not ask for one, and counts nothing', async () => {
    await project('OFF')
    const call = vi.fn(async (token: string | undefined) => token)
    expect(await withCaptcha('signInWithPassword', 'posted', call)).toBeUndefined()
    expect(call).toHaveBeenCalledWith(undefined)
    expect(recordCaptcha).not.toHaveBeenCalled()
  })

  it('sends the posted token while the project enforces it, and counts it passed', async () => {
    await project('ENFORCE')
    expect(await withCaptcha('signInWithPassword', 'posted', async (token) => token)).toBe('posted')
    expect(recordCaptcha).toHaveBeenCalledWith({ action: 'signInWithPassword', outcome: 'passed' })
  })

  it('throws a refusal of the sent token on, counted refused; the setting known, it asks nothing more', async () => {
    await project('ENFORCE')
    const refusal = new IdentityError('auth/invalid-recaptcha-token', 400)
    await expect(withCaptcha('signUpPassword', 'posted', () => Promise.reject(refusal))).rejects.toBe(refusal)
    expect(recordCaptcha).toHaveBeenCalledWith({ action: 'signUpPassword', outcome: 'refused' })
    expect(getRecaptchaConfig).not.toHaveBeenCalled()
  })

  it('refused a token it did not send, counts it missing and asks the project again before throwing', async () => {
    await project('OFF')
    getRecaptchaConfig.mockResolvedValueOnce(setting('ENFORCE'))
    const refusal = new IdentityError('auth/missing-recaptcha-token', 400)
    await expect(withCaptcha('getOobCode', 'posted', () => Promise.reject(refusal))).rejects.toBe(refusal)
    expect(recordCaptcha).toHaveBeenCalledWith({ action: 'getOobCode', outcome: 'missing' })
    expect(getRecaptchaConfig).toHaveBeenCalledOnce()
    // Asked again: the next call sends the token.
    expect(await withCaptcha('getOobCode', 'posted', async (token) => token)).toBe('posted')
  })

  it('counts another refusal of a sent token as passed: the check let it through', async () => {
    await project('ENFORCE')
    const wrong = new IdentityError('auth/invalid-credential', 400)
    await expect(withCaptcha('signInWithPassword', 'posted', () => Promise.reject(wrong))).rejects.toBe(wrong)
    expect(recordCaptcha).toHaveBeenCalledWith({ action: 'signInWithPassword', outcome: 'passed' })
  })
})

describe('what the pages are told', () => {
  beforeEach(() => recordCaptcha.mockClear())

  it('is true only when the project enforces it and no token came, and then counts it missing', async () => {
    await project('AUDIT')
    expect(captchaTokenMissing('getOobCode', undefined)).toBe(false)
    await project('ENFORCE')
    expect(captchaTokenMissing('getOobCode', 'posted')).toBe(false)
    expect(recordCaptcha).not.toHaveBeenCalled()
    expect(captchaTokenMissing('getOobCode', '')).toBe(true)
    expect(recordCaptcha).toHaveBeenCalledWith({ action: 'getOobCode', outcome: 'missing' })
  })

  it('the script to load, only for an action the project checks', async () => {
    await project('ENFORCE')
    expect(captchaSettings('signInWithPassword')).toEqual({ siteKey: 'site-key', src: expect.stringContaining('render=site-key') })
    expect(captchaSettings('mfaSmsSignIn')).toBeNull()
  })
})
