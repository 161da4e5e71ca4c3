import { z } from 'zod'
import { IdentityError } from './errors'
import {
  ProjectConfigSchema,
  RECAPTCHA_OFF,
  RecaptchaSchema,
  type ProjectConfig,
  type RecaptchaConfig,
} from './schemas'
import { CLIENT_TYPE, RECAPTCHA_VERSION, type Call, type IdentityClientOptions } from './transport'

/** A project's (or tenant's) multi-factor settings, as the admin API gives them; every field may be absent. */
const MfaSchema = z.object({
  state: z.string().optional(),
  enabledProviders: z.array(z.string()).optional(),
  providerConfigs: z.array(z.object({ state: z.string().optional(), totpProviderConfig: z.object({}).passthrough().optional() })).optional(),
})
export type MfaConfig = z.output<typeof MfaSchema>

/**
 * The project's public settings (its authorized domains, reCAPTCHA Enterprise's site key and
 * enforcement) and, read with the portal's own credential, its multi-factor settings.
 */
export function projectCalls(call: Call, options: Pick<IdentityClientOptions, 'emulatorOrigin' | 'tenantId' | 'projectId'>) {
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

    /**
     * The second factors the project (or its tenant) lets accounts use: `mfa` of the admin
     * `projects/{id}/config` (a tenant's `mfaConfig`); null when the answer has none.
     */
    async getMfaConfig(accessToken: string): Promise<MfaConfig | null> {
      const project = `/v2/projects/${encodeURIComponent(options.projectId)}`
      const answer = await call({
        name: 'getMfaConfig',
        method: 'GET',
        path: options.tenantId ? `${project}/tenants/${encodeURIComponent(options.tenantId)}` : `${project}/config`,
        read: true,
        headers: { authorization: `Bearer ${accessToken}` },
        schema: z.object({ mfa: MfaSchema.optional(), mfaConfig: MfaSchema.optional() }),
      })
      return answer.mfa ?? answer.mfaConfig ?? null
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
