import { inject } from 'vitest'
import { createIdentityClient } from '../../app/.server/identity'
import { EMULATOR_API_KEY } from '../../dev/emulator'

type Options = Parameters<typeof createIdentityClient>[0]

/** The portal's identity client, in this process, on the run's Auth emulator; `overrides` on top. */
export function emulatorIdentityClient(overrides: Partial<Options> = {}): ReturnType<typeof createIdentityClient> {
  const emulator = inject('emulator')
  return createIdentityClient({
    apiKey: EMULATOR_API_KEY,
    emulatorOrigin: emulator.origin,
    projectId: emulator.projectId,
    tenantId: null,
    timeoutMs: 10_000,
    ...overrides,
  })
}

export interface EmulatorAccount {
  localId: string
  email?: string
  emailVerified?: boolean
  providerUserInfo?: Array<{ providerId: string; email?: string }>
  createdAt?: string
}

/**
 * The account an ID token names, as the run's Auth emulator answers `accounts:lookup`: the portal reads
 * accounts with firebase-admin, so only tests ask this. A refusal throws with the service's message.
 */
export async function accountOf(idToken: string): Promise<EmulatorAccount> {
  const url = `${inject('emulator').origin}/identitytoolkit.googleapis.com/v1/accounts:lookup?key=${EMULATOR_API_KEY}`
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ idToken }),
  })
  const body = (await res.json()) as { users?: EmulatorAccount[]; error?: { message?: string } }
  const account = body.users?.[0]
  if (!res.ok || !account) throw new Error(`accounts:lookup answered ${res.status}: ${body.error?.message ?? 'no account'}`)
  return account
}
