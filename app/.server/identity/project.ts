import { IdentityError } from './errors'
import {
  ProjectConfigSchema,
  RECAPTCHA_OFF,
  RecaptchaSchema,
  type ProjectConfig,
  type RecaptchaConfig,
} from './schemas'
import { CLIENT_TYPE, RECAPTCHA_VERSION, type Call, type IdentityClientOptions } from './transport'

/** The project's public settings: its authorized domains, and reCAPTCHA Enterprise's site key and enforcement. */
export function projectCalls(call: Call, options: Pick<IdentityClientOptions, 'emulatorOrigin' | 'tenantId'>) {
  return {
    /** The project's public configuration (what the Firebase JS SDK reads): authorizedDomains. */
    async getProjectConfig(): Promise<ProjectConfig> {
      return call({
        name: 'getProjectConfig',
        method: 'GET',
        path: '/v1/projects',
        read: true,
        schema: ProjectConfigSchema,
      })
    },

    /** reCAPTCHA Enterprise site key and enforcement. The emulator has no reCAPTCHA: there it is OFF. */
    async getRecaptchaConfig(): Promise<RecaptchaConfig> {
      // The Auth emulator answers 501 NOT_IMPLEMENTED for this call: there reCAPTCHA is off.
      const notImplemented = options.emulatorOrigin ? 501 : undefined
      const query: Record<string, string> = { clientType: CLIENT_TYPE, version: RECAPTCHA_VERSION }
      if (options.tenantId) query.tenantId = options.tenantId
      try {
        return await call({
          name: 'getRecaptchaConfig',
          method: 'GET',
          path: '/v2/recaptchaConfig',
          read: true,
          query,
          schema: RecaptchaSchema,
          expectedStatus: notImplemented,
        })
      } catch (error) {
        if (notImplemented && error instanceof IdentityError && error.status === notImplemented) return RECAPTCHA_OFF
        throw error
      }
    },
  }
}
