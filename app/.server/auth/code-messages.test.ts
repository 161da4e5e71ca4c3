import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CODE_GROUPS, type AuthCode, type CodeGroup } from '~/.server/identity/errors'
import { SERVICE_ERRORS } from '~/.server/identity/errors'
import { messageOf, unavailableStatus } from './code-messages'

/**
 * The rules the table keeps, not the table written out again: a row that breaks a rule fails here
 * however it is written.
 */
const codes = Object.keys(CODE_GROUPS) as AuthCode[]
const inGroup = (group: CodeGroup) => codes.filter((code) => CODE_GROUPS[code] === group)

/** The messages each group may show: a code never borrows another group's message. */
const GROUP_MESSAGES: Record<CodeGroup, string[]> = {
  credentials: ['error.wrongCredentials', 'error.invalidEmail'],
  throttled: ['error.tooManyRequests'],
  unavailable: ['error.unexpected'],
  misconfigured: ['error.unexpected'],
  link: ['error.invalidLink'],
  captcha: ['error.captchaRequired'],
  input: ['error.weakPassword', 'phoneEnrolment.badNumber', 'phoneEnrolment.exists', 'phoneEnrolment.needsVerified'],
  session: ['error.sessionExpired'],
  'account-exists': ['error.emailInUse', 'error.accountExists'],
  'not-allowed': ['error.notAllowed', 'error.unauthorizedDomain'],
  'second-factor': ['error.unexpected', 'mfa.wrongCode', 'mfa.codeRequired', 'mfa.expired', 'mfa.sessionInvalid'],
}

function translation(locale: 'en' | 'fr', key: string): unknown {
  // Both files of the language, as the server merges them (the phone enrolment's messages are the account area's).
  const read = (file: string) => JSON.parse(readFileSync(new URL(`../../../locales/${locale}/${file}`, import.meta.url), 'utf8')) as object
  const messages: unknown = { ...read('common.json'), ...read('account.json') }
  return key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], messages)
}

describe('what a visitor is shown for each auth code', () => {
  it('every code the identity client reports has a message', () => {
    for (const code of Object.values(SERVICE_ERRORS)) expect(codes).toContain(code)
    for (const code of codes) expect(() => messageOf(code), code).not.toThrow()
  })

  it.each(codes)('%s shows a message of its group, translated in English and French', (code) => {
    const { key } = messageOf(code)
    expect(GROUP_MESSAGES[CODE_GROUPS[code]]).toContain(key)
    for (const locale of ['en', 'fr'] as const) expect(translation(locale, key), `${locale}: ${key}`).toMatch(/\S/)
  })

  it('the credentials a sign-in refuses all read alike, so none tells an account exists', () => {
    const messages = new Set(inGroup('credentials').filter((code) => code !== 'auth/invalid-email').map((code) => messageOf(code).key))
    expect(messages).toEqual(new Set(['error.wrongCredentials']))
  })

  it('429 only when the service throttles, 503 only when nothing was judged, 400 for what the visitor can change', () => {
    for (const code of codes) {
      const { key, status } = messageOf(code)
      const group = CODE_GROUPS[code]
      if (group === 'throttled') expect(status, code).toBe(429)
      else if (key === 'error.unexpected') expect(status, code).toBe(503)
      else expect(status, code).toBe(400)
    }
  })

  it('an unavailable check answers 429 when throttled, else 503', () => {
    expect(unavailableStatus('auth/too-many-requests')).toBe(429)
    for (const code of [...inGroup('unavailable'), ...inGroup('misconfigured')]) expect(unavailableStatus(code)).toBe(503)
  })
})
