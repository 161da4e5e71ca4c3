import { inject } from 'vitest'

/**
 * Points this worker's product modules at the run's Auth emulator. The configuration is read once,
 * by the first module that needs it: call this inside vi.hoisted, before any product import.
 */
export function pointAtEmulator() {
  const { host, projectId, origin } = inject('emulator')
  process.env.FIREBASE_AUTH_EMULATOR_HOST = host
  process.env.FIREBASE_PROJECT_ID = projectId
  return { host, projectId, origin }
}
