import { afterAll, describe, expect, inject, it } from 'vitest'
import { authCodeFor, IdentityError } from '../../app/.server/identity'
import { EMULATOR_API_KEY, emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { accountOf, emulatorIdentityClient } from '../support/emulator-identity'
import { codeOf } from '../support/identity-errors'

/**
 * The client against the real Firebase Auth emulator: the same requests production gets, and the
 * emulator's answers. Every account is new (uniqueEmail), so tests never share state.
 */

const emu = inject('emulator')
const admin = emulatorAdmin(emu)
const identity = emulatorIdentityClient()
afterAll(() => identity.close())

const PASSWORD = 'correct-horse-1'

/**
 * A call the portal does not make (token refresh), sent to the emulator directly: a refusal
 * rejects with an IdentityError of the code the portal gives its name.
 */
async function emulatorCall(url: string, body: Record<string, string>, form = false): Promise<unknown> {
  const res = await fetch(`${emu.origin}/${url}?key=${EMULATOR_API_KEY}`, {
    method: 'POST',
    headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
    body: form ? new URLSearchParams(body).toString() : JSON.stringify(body),
  })
  const answer = (await res.json()) as { error?: { message?: string } }
  if (!res.ok) throw new IdentityError(authCodeFor(answer.error?.message), res.status)
  return answer
}

async function refresh(refreshToken: string) {
  const body = { grant_type: 'refresh_token', refresh_token: refreshToken }
  const r = (await emulatorCall('securetoken.googleapis.com/v1/token', body, true)) as Record<string, string>
  return { idToken: r.id_token!, refreshToken: r.refresh_token!, expiresIn: Number(r.expires_in), userId: r.user_id }
}

describe('identity client against the Auth emulator', () => {
  it('signs in with the right password and answers tokens', async () => {
    const email = uniqueEmail('signin')
    const { localId } = await admin.createUser(email, PASSWORD)
    const result = await identity.signInWithPassword(email, PASSWORD)
    expect(result).toMatchObject({ localId, email })
    expect(result.idToken).toMatch(/\./)
    expect(result.refreshToken.length).toBeGreaterThan(10)
    expect(result.expiresIn).toBe(3600)
  })

  it('refuses a wrong password and an unknown email', async () => {
    const email = uniqueEmail('wrong')
    await admin.createUser(email, PASSWORD)
    // The emulator says INVALID_PASSWORD / EMAIL_NOT_FOUND; production with email enumeration
    // protection says INVALID_LOGIN_CREDENTIALS for both. All show error.wrongCredentials.
    expect(['auth/wrong-password', 'auth/invalid-credential']).toContain(
      await codeOf(identity.signInWithPassword(email, 'not-the-password')),
    )
    expect(['auth/user-not-found', 'auth/invalid-credential']).toContain(
      await codeOf(identity.signInWithPassword(uniqueEmail('nobody'), PASSWORD)),
    )
    expect(await codeOf(identity.signInWithPassword('not an email', PASSWORD))).toBe('auth/invalid-email')
  })

  it('refuses a disabled user', async () => {
    const email = uniqueEmail('disabled')
    const { localId, refreshToken } = await admin.createUser(email, PASSWORD)
    await admin.disableUser(localId)
    expect(await codeOf(identity.signInWithPassword(email, PASSWORD))).toBe('auth/user-disabled')
    expect(await codeOf(refresh(refreshToken))).toBe('auth/user-disabled')
  })

  it('resets a password: send, check twice without spending, spend once', async () => {
    const email = uniqueEmail('reset')
    await admin.createUser(email, PASSWORD)
    await identity.sendOobCode({
      requestType: 'PASSWORD_RESET',
      email,
      continueUrl: 'http://localhost:3000/',
      locale: 'fr',
    })
    const oobCode = (await admin.emailed(email, 'PASSWORD_RESET')).oobCode

    for (let i = 0; i < 2; i++) {
      expect(await identity.checkActionCode(oobCode)).toEqual({
        requestType: 'PASSWORD_RESET',
        email,
        newEmail: null,
        secondFactor: null,
      })
    }
    expect(await codeOf(identity.resetPassword(oobCode, '123'))).toBe('auth/weak-password')
    expect(await identity.resetPassword(oobCode, 'brand-new-password')).toMatchObject({
      requestType: 'PASSWORD_RESET',
      email,
    })

    expect(await codeOf(identity.resetPassword(oobCode, 'another-new-password'))).toBe('auth/invalid-action-code')
    expect(await codeOf(identity.checkActionCode(oobCode))).toBe('auth/invalid-action-code')
    expect(['auth/wrong-password', 'auth/invalid-credential']).toContain(
      await codeOf(identity.signInWithPassword(email, PASSWORD)),
    )
    expect((await identity.signInWithPassword(email, 'brand-new-password')).email).toBe(email)
  })

  it('refuses a made-up code', async () => {
    expect(await codeOf(identity.checkActionCode('made-up-code'))).toBe('auth/invalid-action-code')
  })

  it('sends no reset code for an unknown address (the emulator says so; production may not)', async () => {
    const code = await identity.sendOobCode({ requestType: 'PASSWORD_RESET', email: uniqueEmail('nobody') }).then(
      () => 'sent',
      (e: IdentityError) => e.code,
    )
    // The emulator answers EMAIL_NOT_FOUND; production with email enumeration protection answers 200.
    expect(['auth/user-not-found', 'sent']).toContain(code)
  })

  it('refreshes a token and looks the user up', async () => {
    const email = uniqueEmail('refresh')
    const { localId, refreshToken } = await admin.createUser(email, PASSWORD)
    const refreshed = await refresh(refreshToken)
    expect(refreshed.userId).toBe(localId)
    expect(refreshed.idToken).toMatch(/\./)
    expect(refreshed.refreshToken.length).toBeGreaterThan(10)
    expect(refreshed.expiresIn).toBe(3600)

    const user = await accountOf(refreshed.idToken)
    expect(user).toMatchObject({ localId, email, emailVerified: false, providerUserInfo: [{ providerId: 'password', email }] })
    expect(Number(user.createdAt)).toBeGreaterThan(0)

    expect(await codeOf(refresh('not-a-refresh-token'))).toBe('auth/invalid-user-token')
    await expect(accountOf('not-an-id-token')).rejects.toThrow('INVALID_ID_TOKEN')
  })

  it('verifies an email with update(oobCode) and changes the password with update(idToken)', async () => {
    const email = uniqueEmail('verify')
    const { idToken } = await admin.createUser(email, PASSWORD)
    await identity.sendOobCode({ requestType: 'VERIFY_EMAIL', idToken, locale: 'en' })
    const oobCode = (await admin.emailed(email, 'VERIFY_EMAIL')).oobCode
    expect(await identity.checkActionCode(oobCode)).toMatchObject({ requestType: 'VERIFY_EMAIL', email })
    expect(await identity.update({ oobCode })).toMatchObject({ email, emailVerified: true, tokens: null })

    const changed = await identity.update({ idToken, password: 'changed-password' })
    expect(changed.tokens?.idToken).toMatch(/\./)
    expect((await accountOf(changed.tokens!.idToken)).emailVerified).toBe(true)
    expect((await identity.signInWithPassword(email, 'changed-password')).email).toBe(email)
  })

  it('signs in with an email link', async () => {
    const email = uniqueEmail('link')
    await identity.sendOobCode({ requestType: 'EMAIL_SIGNIN', email, continueUrl: 'http://localhost:3000/' })
    const oobCode = (await admin.emailed(email, 'EMAIL_SIGNIN')).oobCode
    const result = await identity.signInWithEmailLink(email, oobCode)
    expect(result).toMatchObject({ email, isNewUser: true })
    expect(await codeOf(identity.signInWithEmailLink(email, oobCode))).toBe('auth/invalid-action-code')
  })

  it('signs in with an identity provider (the emulator takes fake id_tokens)', async () => {
    const email = uniqueEmail('idp')
    const claims = JSON.stringify({ sub: `sub-${email}`, email, email_verified: true, name: 'Idp User' })
    const result = await identity.signInWithIdp({
      requestUri: 'http://localhost:3000/',
      postBody: `providerId=google.com&id_token=${encodeURIComponent(claims)}`,
    })
    expect(result).toMatchObject({ email, providerId: 'google.com', isNewUser: true, displayName: 'Idp User' })

    // An unverified provider email that matches a password account needs confirmation (a 200 answer).
    const taken = uniqueEmail('taken')
    await admin.createUser(taken, PASSWORD)
    const unverified = JSON.stringify({ sub: `sub-${taken}`, email: taken, email_verified: false })
    expect(
      await codeOf(
        identity.signInWithIdp({
          requestUri: 'http://localhost:3000/',
          postBody: `providerId=facebook.com&id_token=${encodeURIComponent(unverified)}`,
        }),
      ),
    ).toBe('auth/account-exists-with-different-credential')
  })

  it('deletes an account', async () => {
    const email = uniqueEmail('delete')
    const { idToken } = await admin.createUser(email, PASSWORD)
    await identity.deleteAccount(idToken)
    expect(['auth/user-not-found', 'auth/invalid-credential']).toContain(
      await codeOf(identity.signInWithPassword(email, PASSWORD)),
    )
    await expect(accountOf(idToken)).rejects.toThrow('USER_NOT_FOUND')
  })

  it('reads the authorized domains from the project config', async () => {
    const config = await identity.getProjectConfig()
    expect(config.authorizedDomains).toContain('localhost')
  })

  it('reads the reCAPTCHA config: the emulator does not implement it, so it is OFF', async () => {
    // What the emulator answers, for the record: 501 NOT_IMPLEMENTED.
    const raw = await fetch(
      `${emu.origin}/identitytoolkit.googleapis.com/v2/recaptchaConfig?clientType=CLIENT_TYPE_WEB&version=RECAPTCHA_ENTERPRISE&key=${EMULATOR_API_KEY}`,
    )
    expect(raw.status).toBe(501)
    // An expected answer: logged at debug, not as a failed call, and not counted as an error.
    const logged: string[] = []
    const codes: unknown[] = []
    const record =
      (level: string) =>
      (...args: unknown[]) => {
        logged.push(`${level} ${String(args[1])}`)
      }
    const quiet = emulatorIdentityClient({
      logger: { debug: record('debug'), info: record('info'), warn: record('warn') },
      onCall: ({ code }) => codes.push(code),
    })
    expect(await quiet.getRecaptchaConfig()).toEqual({
      recaptchaKey: null,
      siteKey: null,
      emailPassword: 'OFF',
      phone: 'OFF',
    })
    await quiet.close()
    expect(logged).toEqual(['debug identity call'])
    expect(codes).toEqual([null])
  })

  it("reads the project's multi-factor settings: the emulator's config answer has none (ADR 072)", async () => {
    expect(await identity.getMfaConfig('owner')).toBeNull()
  })

  it('does not know a provider sign-in URL in the emulator (501) and says so as internal-error', async () => {
    expect(
      await codeOf(identity.createAuthUri({ providerId: 'google.com', continueUri: 'http://localhost:3000/' })),
    ).toBe('auth/internal-error')
  })
})
