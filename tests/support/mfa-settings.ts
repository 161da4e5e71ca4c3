import type { LoopbackCall } from './emulator-relay'

/** Multi-factor settings with SMS and authenticator apps on, as a project that enables both has them. */
export const SMS_AND_APPS = {
  state: 'ENABLED',
  enabledProviders: ['PHONE_SMS'],
  providerConfigs: [{ state: 'ENABLED', totpProviderConfig: { adjacentIntervals: 1 } }],
}

/**
 * For a loopback identity service: answers the admin `projects/{id}/config` with the emulator's
 * own answer plus these multi-factor settings (the emulator's has none, ADR 072). True when it answered.
 */
export async function answerMfaSettings(call: Pick<LoopbackCall, 'path' | 'answer' | 'forward'>, mfa: object): Promise<boolean> {
  if (!/^\/v2\/projects\/[^/]+\/config$/.test(call.path)) return false
  const upstream = await call.forward()
  call.answer(upstream.status, upstream.status === 200 ? { ...(JSON.parse(upstream.body) as object), mfa } : JSON.parse(upstream.body))
  return true
}
