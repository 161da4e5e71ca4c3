/**
 * Sign-in providers the identity service knows by a well-known id, by the name people know them
 * by. `saml.*` and `oidc.*` providers are an organisation's own: only the operator knows their name
 * (SSO_PROVIDER_NAME).
 */
export const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  'google.com': 'Google',
  'apple.com': 'Apple',
  'microsoft.com': 'Microsoft',
  'facebook.com': 'Facebook',
  'github.com': 'GitHub',
  'twitter.com': 'X',
  'yahoo.com': 'Yahoo',
}

/** The provider's name as a visitor knows it: the configured one, else a well-known one, else null. */
export function providerName(providerId: string, configured: string | null = null): string | null {
  return configured ?? (Object.hasOwn(PROVIDER_NAMES, providerId) ? PROVIDER_NAMES[providerId]! : null)
}

/** Which mark a provider's button shows (app/components/provider-mark.tsx): Google's own "G", or a neutral one. */
export type ProviderMarkKind = 'google' | 'other'
