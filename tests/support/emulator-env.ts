import { inject } from 'vitest'

/**
 * Points this worker's product modules at the run's Auth emulator and the shared portal's session
 * store. The configuration is read once, by the first module that needs it: call this inside
 * vi.hoisted, before any product import.
 */
export function pointAtEmulator() {
  const { host, projectId, origin } = inject('emulator')
  process.env.FIREBASE_AUTH_EMULATOR_HOST = host
  process.env.FIREBASE_PROJECT_ID = projectId
  process.env.SESSION_STORE_PATH = inject('portal').sessionStorePath
  return { host, projectId, origin }
}
