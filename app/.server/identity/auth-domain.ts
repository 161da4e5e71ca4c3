/**
 * The `authDomain` setting: a bare host name with an optional port, such as
 * `my-project.firebaseapp.com`, `auth.example.com` or `localhost:9099`. Anything else (a scheme,
 * a path, user info, spaces, control characters, more than 253 characters…) is null, and the
 * caller logs it as invalid. The answer is lower-cased.
 */
export function parseAuthDomain(value: string | null): string | null {
  if (value === null || value.length === 0 || value.length > 259) return null
  const match = /^([A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(value)
  if (!match) return null
  const [, host = '', port] = match
  if (host.length > 253) return null
  const label = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/
  const hostname = host.toLowerCase()
  if (!hostname.split('.').every((part) => label.test(part))) return null
  if (port !== undefined && (!/^[1-9]\d*$/.test(port) || Number(port) > 65535)) return null
  return port === undefined ? hostname : `${hostname}:${port}`
}
