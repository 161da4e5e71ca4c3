import { getConfig } from '~/.server/config'
import { codeOf, type MfaConfig } from '~/.server/identity'
import { logger } from '~/.server/ops/logger'
import { readMfaConfig } from './identity-admin'

// Read with the portal's credential and cached 5 minutes. Before any answer
// every kind is offered; the service then refuses what it does not allow.
export type FactorKind = 'phone' | 'totp'

const FRESH_MS = 5 * 60_000
const RETRY_MS = 30_000
const EVERY_KIND: FactorKind[] = ['phone', 'totp']
/** The emulator's config answer leaves these out: SMS on, no authenticator apps. */
const EMULATOR: MfaConfig = { state: 'ENABLED', enabledProviders: ['PHONE_SMS'] }

const on = (state: string | undefined) => state === 'ENABLED' || state === 'MANDATORY'

export function factorKindsOf(mfa: MfaConfig | null, emulator: boolean): FactorKind[] {
  const settings = mfa ?? (emulator ? EMULATOR : null)
  if (!settings) return []
  const kinds: FactorKind[] = []
  if (on(settings.state) && settings.enabledProviders?.includes('PHONE_SMS')) kinds.push('phone')
  if (settings.providerConfigs?.some((p) => p.totpProviderConfig && on(p.state))) kinds.push('totp')
  return kinds
}

let known: { kinds: FactorKind[]; until: number } | null = null
let reading: Promise<FactorKind[]> | null = null

export function offeredFactors(): Promise<FactorKind[]> {
  if (known && known.until > Date.now()) return Promise.resolve(known.kinds)
  reading ??= readMfaConfig()
    .then(
      (mfa) => {
        const kinds = factorKindsOf(mfa, Boolean(getConfig().identity.emulatorOrigin))
        known = { kinds, until: Date.now() + FRESH_MS }
        return kinds
      },
      (error: unknown) => {
        const kinds = known?.kinds ?? EVERY_KIND
        logger.warn(
          { event: 'mfa-config-failed', code: codeOf(error), offered: kinds },
          "the project's second factors could not be read: offering the last known",
        )
        known = { kinds, until: Date.now() + RETRY_MS }
        return kinds
      },
    )
    .finally(() => {
      reading = null
    })
  return reading
}

export const factorOffered = async (kind: FactorKind) => (await offeredFactors()).includes(kind)
