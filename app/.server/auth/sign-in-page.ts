export const SIGN_IN_PAGE_ERRORS = {
  ssoError: {
    cancelled: 'sso.cancelled',
    'account-exists': 'error.accountExists',
    disabled: 'error.accountDisabled',
    provider: 'sso.providerError',
    unavailable: 'sso.unavailable',
  },
  mfaError: {
    expired: 'mfa.expired',
    invalid: 'mfa.sessionInvalid',
  },
} as const

type Param = keyof typeof SIGN_IN_PAGE_ERRORS
type Message = { [P in Param]: (typeof SIGN_IN_PAGE_ERRORS)[P][keyof (typeof SIGN_IN_PAGE_ERRORS)[P]] }[Param]
export type MfaError = keyof (typeof SIGN_IN_PAGE_ERRORS)['mfaError']
export type SsoError = keyof (typeof SIGN_IN_PAGE_ERRORS)['ssoError']

export function signInPageError(params: URLSearchParams): Message | null {
  for (const param of Object.keys(SIGN_IN_PAGE_ERRORS) as Param[]) {
    const table: Record<string, Message> = SIGN_IN_PAGE_ERRORS[param]
    const value = params.get(param)
    if (value !== null && Object.hasOwn(table, value)) return table[value]!
  }
  return null
}
