/**
 * The Cookie header a browser sends after these Set-Cookie headers: a later one replaces an earlier one of
 * its name, and an emptied one is dropped. For unit tests that carry a flow's real cookies from one answer
 * to the next request.
 */
export function cookieHeader(setCookies: readonly string[], jar = new Map<string, string>()): string {
  for (const [, name, value] of setCookies.map((c) => /^([^=]+)=([^;]*)/.exec(c)!)) {
    if (value) jar.set(name!, value)
    else jar.delete(name!)
  }
  return [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
}
