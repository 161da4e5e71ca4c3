export const RECENT_SIGN_IN_SECONDS = 5 * 60

// Not verified here: only for an ID token that just came from the identity service.
export function tokenClaims(idToken: string): {
  uid: string | null
  email: string | null
  authTime: number | null
  secondFactor: string | null
} {
  const none = { uid: null, email: null, authTime: null, secondFactor: null }
  const payload = idToken.split('.')[1]
  if (!payload) return none
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      sub?: unknown
      email?: unknown
      auth_time?: unknown
      firebase?: { sign_in_second_factor?: unknown }
    }
    const factor = claims.firebase?.sign_in_second_factor
    return {
      uid: typeof claims.sub === 'string' && claims.sub ? claims.sub : null,
      email: typeof claims.email === 'string' ? claims.email : null,
      authTime: typeof claims.auth_time === 'number' ? claims.auth_time : null,
      secondFactor: typeof factor === 'string' && factor ? factor : null,
    }
  } catch {
    return none
  }
}

export function isRecentSignIn(authTime: number | null): authTime is number {
  return authTime !== null && Date.now() / 1000 - authTime <= RECENT_SIGN_IN_SECONDS
}

export const recentUntil = (idToken: string, seconds: number) => ((tokenClaims(idToken).authTime ?? 0) + seconds) * 1000
