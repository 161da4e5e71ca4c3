/**
 * A path on our own origin, or the fallback: used for "come back here" fields that
 * only ever point inside the portal (language switch, consent notice).
 */
export function localPathOr(value: unknown, fallback = '/'): string {
  if (typeof value !== 'string' || value.length > 2048) return fallback
  // Refuse control characters and backslashes before parsing: browsers treat "\" as "/".
  // eslint-disable-next-line no-control-regex
  if (!value.startsWith('/') || /[\u0000-\u001f\u007f\\]/.test(value)) return fallback
  const base = 'http://portal.invalid'
  try {
    const url = new URL(value, base)
    if (url.origin !== base) return fallback
    return url.pathname + url.search
  } catch {
    return fallback
  }
}
