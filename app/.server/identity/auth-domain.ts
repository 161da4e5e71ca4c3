/** A bare host name with an optional port; anything else (a scheme, a path, user info…) is null. */
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
