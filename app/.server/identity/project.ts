import { z } from 'zod'
import { IdentityError } from './errors'
import { ProjectConfigSchema, RECAPTCHA_OFF, RecaptchaSchema, type RecaptchaConfig } from './schemas'
import { CLIENT_TYPE, RECAPTCHA_VERSION, type Call, type IdentityClientOptions } from './transport'

const MfaSchema = z.object({
  state: z.string().optional(),
  enabledProviders: z.array(z.string()).optional(),
  providerConfigs: z.array(z.object({ state: z.string().optional(), totpProviderConfig: z.object({}).passthrough().optional() })).optional(),
})
export type MfaConfig = z.output<typeof MfaSchema>

export function projectCalls(call: Call, options: Pick<IdentityClientOptions, 'emulatorOrigin' | 'tenantId' | 'projectId'>) {
  return {
    getProjectConfig: () =>
      call({ name: 'getProjectConfig', method: 'GET', path: '/v1/projects', read: true, schema: ProjectConfigSchema }),

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

    async getRecaptchaConfig(): Promise<RecaptchaConfig> {
      // The Auth emulator answers 501 NOT_IMPLEMENTED for this call.
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
