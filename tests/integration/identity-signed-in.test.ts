import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createIdentityClient } from '../../app/.server/identity'
import { EMULATOR_API_KEY, emulatorAdmin, uniqueEmail } from '../../dev/emulator'
import { accountOf } from '../support/emulator-identity'
import { codeOf } from '../support/identity-errors'

/**
 * The calls made with the signed-in visitor's ID token (app/.server/identity/signed-in.ts, and
 * sendOobCode's VERIFY_EMAIL / VERIFY_AND_CHANGE_EMAIL) against the real Auth emulator; the
 * refusals the emulator never gives (a token too old, a project that forbids deletion) from a
 * loopback server that answers as production does.
 */

const emu = inject('emulator')
const admin = emulatorAdmin(emu)
const options = { apiKey: EMULATOR_API_KEY, projectId: emu.projectId, tenantId: null, timeoutMs: 10_000 }
const identity = createIdentityClient({ ...options, emulatorOrigin: emu.origin })
afterAll(() => identity.close())

const PASSWORD = 'correct-horse-1'

async function codesFor(email: string, requestType: string) {
  return (await admin.oobCodes()).filter((c) => c.email === email && c.requestType === requestType)
}

describe('signed-in calls against the Auth emulator', () => {
  it('changePassword: new tokens, the old password fails and the new one works; a weak one is refused', async () => {
    const email = uniqueEmail('password')
    const { localId, idToken } = await admin.createUser(email, PASSWORD)
    expect(await codeOf(identity.changePassword(idToken, '123'))).toBe('auth/weak-password')
    const changed = await identity.changePassword(idToken, 'another-horse-2')
    expect(changed.localId).toBe(localId)
    expect(changed.idToken).toMatch(/\./)
    expect(changed.refreshToken.length).toBeGreaterThan(10)
    expect(changed.expiresIn).toBe(3600)
    expect((await accountOf(changed.idToken)).email).toBe(email)
    expect(['auth/wrong-password', 'auth/invalid-credential']).toContain(
      await codeOf(identity.signInWithPassword(email, PASSWORD)),
    )
    expect((await identity.signInWithPassword(email, 'another-horse-2')).localId).toBe(localId)
  })

  it('sendOobCode VERIFY_EMAIL sends a link that verifies the address', async () => {
    const email = uniqueEmail('verify')
    const { idToken } = await admin.createUser(email, PASSWORD)
    await identity.sendOobCode({ requestType: 'VERIFY_EMAIL', idToken })
    const [sent] = await codesFor(email, 'VERIFY_EMAIL')
    expect(sent?.oobLink).toContain('mode=verifyEmail')
    await identity.update({ oobCode: sent!.oobCode })
    expect((await accountOf(idToken)).emailVerified).toBe(true)
  })

  it('sendOobCode VERIFY_AND_CHANGE_EMAIL: the link changes the address; only the new one signs in', async () => {
    const email = uniqueEmail('change')
    const newEmail = uniqueEmail('changed')
    const { localId, idToken } = await admin.createUser(email, PASSWORD)
    await identity.sendOobCode({ requestType: 'VERIFY_AND_CHANGE_EMAIL', idToken, newEmail })
    const [sent] = await codesFor(email, 'VERIFY_AND_CHANGE_EMAIL')
    expect(sent).toMatchObject({ newEmail })
    // Nothing changes before the link is opened.
    expect((await accountOf(idToken)).email).toBe(email)
    expect(await identity.checkActionCode(sent!.oobCode)).toMatchObject({
      requestType: 'VERIFY_AND_CHANGE_EMAIL',
      email,
      newEmail,
    })
    await identity.update({ oobCode: sent!.oobCode })
    expect((await identity.signInWithPassword(newEmail, PASSWORD)).localId).toBe(localId)
    expect(['auth/user-not-found', 'auth/invalid-credential']).toContain(
      await codeOf(identity.signInWithPassword(email, PASSWORD)),
    )
  })

  it('sendOobCode VERIFY_AND_CHANGE_EMAIL to an address another account holds: auth/email-already-in-use', async () => {
    const taken = uniqueEmail('taken')
    await admin.createUser(taken, PASSWORD)
    const { idToken } = await admin.createUser(uniqueEmail('mover'), PASSWORD)
    // The emulator says EMAIL_EXISTS; production under email-enumeration protection sends nothing
    // and answers 200. Either way the page must say the same thing.
    expect(
      await codeOf(identity.sendOobCode({ requestType: 'VERIFY_AND_CHANGE_EMAIL', idToken, newEmail: taken })),
    ).toBe('auth/email-already-in-use')
  })

  it('deleteAccount: signing in fails afterwards; a second delete finds no account', async () => {
    const email = uniqueEmail('delete')
    const { idToken } = await admin.createUser(email, PASSWORD)
    await identity.deleteAccount(idToken)
    expect(await admin.localIdOf(email)).toBeNull()
    expect(['auth/user-not-found', 'auth/invalid-credential']).toContain(
      await codeOf(identity.signInWithPassword(email, PASSWORD)),
    )
    expect(await codeOf(identity.deleteAccount(idToken))).toBe('auth/user-token-expired')
    expect(await codeOf(identity.deleteAccount('not-an-id-token'))).toBe('auth/invalid-user-token')
  })
})

/** The service's refusals the emulator never gives, answered by a loopback server. */
describe('signed-in calls: refusals only production gives', () => {
  let server: http.Server
  let answer: { status: number; body: unknown } = { status: 200, body: {} }
  let faults: ReturnType<typeof createIdentityClient>
  const paths: string[] = []

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        paths.push(new URL(req.url ?? '/', 'http://x').pathname)
        res.writeHead(answer.status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(answer.body))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    faults = createIdentityClient({
      ...options,
      emulatorOrigin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    })
  })
  afterAll(async () => {
    await faults.close()
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  const refuse = (message: string) => (answer = { status: 400, body: { error: { code: 400, message } } })
  const calls = () => ({
    changePassword: faults.changePassword('token', 'another-horse-2'),
    deleteAccount: faults.deleteAccount('token'),
    changeEmail: faults.sendOobCode({ requestType: 'VERIFY_AND_CHANGE_EMAIL', idToken: 'token', newEmail: 'a@b.c' }),
  })

  it.each([
    ['CREDENTIAL_TOO_OLD_LOGIN_AGAIN', 'auth/requires-recent-login'],
    ['TOKEN_EXPIRED', 'auth/user-token-expired'],
    ['USER_DISABLED', 'auth/user-disabled'],
    ['ADMIN_ONLY_OPERATION', 'auth/admin-restricted-operation'],
    ['OPERATION_NOT_ALLOWED : This operation is not allowed', 'auth/operation-not-allowed'],
    ['EMAIL_EXISTS', 'auth/email-already-in-use'],
    ['TOO_MANY_ATTEMPTS_TRY_LATER', 'auth/too-many-requests'],
  ] as const)('%s is %s on every call', async (message, code) => {
    refuse(message)
    for (const [name, call] of Object.entries(calls())) {
      expect([name, await codeOf(call)]).toEqual([name, code])
    }
  })

  it('a password change without tokens is auth/internal-error', async () => {
    answer = { status: 200, body: { localId: 'uid', email: 'a@b.c' } }
    expect(await codeOf(faults.changePassword('token', 'another-horse-2'))).toBe('auth/internal-error')
  })

  it('sends each to its path', async () => {
    answer = { status: 200, body: {} }
    paths.length = 0
    await faults.deleteAccount('token')
    await faults.changePassword('token', 'x').catch(() => undefined)
    expect(paths).toEqual([
      '/identitytoolkit.googleapis.com/v1/accounts:delete',
      '/identitytoolkit.googleapis.com/v1/accounts:update',
    ])
  })
})
