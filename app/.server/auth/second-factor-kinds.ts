import { getConfig } from '~/.server/config'
import { codeOf, type MfaConfig } from '~/.server/identity'
import { logger } from '~/.server/ops/logger'
import { readMfaConfig } from './identity-admin'

/**
 * The kinds of second factor the identity project lets its accounts add (ADR 072): the account
 * page offers only these, and the pages that add one say so for the others instead of calling the
 * service. Read from the project's multi-factor settings with the portal's own credential and
 * kept 5 minutes. While they cannot be read the last answer holds, and before any answer every
 * kind is offered: the service then refuses what it does not allow, and the page says so.
 */
export type FactorKind = 'phone' | 'totp'

const FRESH_MS = 5 * 60_000
const RETRY_MS = 30_000
const EVERY_KIND: FactorKind[] = ['phone', 'totp']
/** The Auth emulator's settings, which its config answer leaves out: SMS on, no authenticator apps (it has none). */
const EMULATOR: MfaConfig = { state: 'ENABLED', enabledProviders: ['PHONE_SMS'] }

const on = (state: string | undefined) => state === 'ENABLED' || state === 'MANDATORY'

/**
 * What the settings allow: SMS while multi-factor is on with PHONE_SMS listed, an authenticator
 * app while a TOTP provider config is on. No settings: none, except on the emulator.
 */
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

/** The kinds the project enables now (never throws). */
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

/** Whether accounts may add this kind of factor now. */
export const factorOffered = async (kind: FactorKind) => (await offeredFactors()).includes(kind)
