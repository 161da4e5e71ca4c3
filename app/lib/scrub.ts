/** Used on both sides. */
const SECRET_KEY =
  /pass(word)?|token|oob_?code|^code$|verification_?code|credential|cookie|authorization|csrf|secret|api_?key|^key$|captcha|session/i
const SECRET_PARAM = /((?:^|[?&;\s])(?:oobCode|apiKey|key|token|access_token|id_token|refresh_token|password|csrf|code|email)=)[^&#\s"']*/gi
const REDACTED = '[redacted]'
const MAX_DEPTH = 12

const BEARER = /\bBearer\s+[\w.~+/=-]+/g

export function scrub<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return value.replace(SECRET_PARAM, `$1${REDACTED}`).replace(BEARER, `Bearer ${REDACTED}`) as T
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1)) as T
  const out: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) {
    out[key] = SECRET_KEY.test(key) ? REDACTED : scrub(inner, depth + 1)
  }
  return out as T
}
