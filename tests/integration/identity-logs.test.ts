import { afterEach, beforeEach, expect, inject, it } from 'vitest'
import { IdentityError } from '../../app/.server/identity'
import { captureLogs, logger } from '../../app/.server/ops/logger'
import { EMULATOR_API_KEY, emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { emulatorIdentityClient } from '../support/emulator-identity'

/** What the identity client logs: the call, status, code and time; never a secret or an address. */

const emu = inject('emulator')
const admin = emulatorAdmin(emu)
let previousLevel: string

beforeEach(() => {
  // LOG_LEVEL is 'silent' under vitest: this test needs the debug lines.
  previousLevel = logger.level
  logger.level = 'debug'
})
afterEach(() => {
  logger.level = previousLevel
})

it('logs every call without passwords, tokens, codes, the API key or the email', async () => {
  const identity = emulatorIdentityClient({ logger })
  const email = uniqueEmail('logs')
  const password = 'a-Secret-Password-123'
  const newPassword = 'an-Other-Secret-456'
  const thirdPassword = 'a-Third-Secret-789'
  await admin.createUser(email, password)

  const logs = captureLogs()
  const secrets: string[] = [password, newPassword, thirdPassword, EMULATOR_API_KEY, email]
  try {
    const signedIn = await identity.signInWithPassword(email, password)
    secrets.push(signedIn.idToken, signedIn.refreshToken)

    await identity.sendOobCode({
      requestType: 'PASSWORD_RESET',
      email,
      continueUrl: 'http://localhost:3000/',
      locale: 'fr',
    })
    const oobCode = (await admin.oobCodes()).filter((c) => c.email === email).at(-1)?.oobCode
    if (!oobCode) throw new Error('no reset code')
    secrets.push(oobCode)
    await identity.checkActionCode(oobCode)
    await identity.resetPassword(oobCode, newPassword)

    const failed = await identity.signInWithPassword(email, password).catch((e: unknown) => e)
    expect(failed).toBeInstanceOf(IdentityError)
    expect(JSON.stringify(failed)).not.toContain(password)
    expect(String(failed)).not.toContain(email)

    const again = await identity.signInWithPassword(email, newPassword)
    secrets.push(again.idToken, again.refreshToken)
    // A call that takes a token and answers new ones (the portal makes no token refresh).
    const updated = await identity.update({ idToken: again.idToken, password: thirdPassword })
    if (!updated.tokens) throw new Error('no new tokens')
    secrets.push(updated.tokens.idToken, updated.tokens.refreshToken)
  } finally {
    logs.stop()
    await identity.close()
  }

  const text = logs.text()
  const lines = logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>)
  expect(lines.map((l) => l.call)).toEqual([
    'signInWithPassword',
    'sendOobCode',
    'checkActionCode',
    'resetPassword',
    'signInWithPassword',
    'signInWithPassword',
    'update',
  ])
  for (const line of lines) {
    expect(line).toHaveProperty('status')
    expect(line).toHaveProperty('code')
    expect(typeof line.ms).toBe('number')
  }
  expect(lines[4]).toMatchObject({
    level: 'info',
    status: 400,
    code: expect.stringMatching(/^auth\/(wrong-password|invalid-credential)$/),
  })
  expect(lines[0]).toMatchObject({ level: 'debug', status: 200, code: null })

  for (const secret of secrets) {
    expect(secret.length).toBeGreaterThan(5)
    expect(text).not.toContain(secret)
  }
  expect(text).not.toContain('key=')
  expect(text).not.toContain('googleapis.com')
  expect(text).not.toContain(emu.origin)
})
