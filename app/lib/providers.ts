const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  'google.com': 'Google',
  'apple.com': 'Apple',
  'microsoft.com': 'Microsoft',
  'facebook.com': 'Facebook',
  'github.com': 'GitHub',
  'twitter.com': 'X',
  'yahoo.com': 'Yahoo',
}

export function providerName(providerId: string, configured: string | null = null): string | null {
  return configured ?? (Object.hasOwn(PROVIDER_NAMES, providerId) ? PROVIDER_NAMES[providerId]! : null)
}

/** Which mark a provider's button shows (app/components/provider-mark.tsx): Google's own "G", or a neutral one. */
export type ProviderMarkKind = 'google' | 'other'
