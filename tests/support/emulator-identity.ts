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
