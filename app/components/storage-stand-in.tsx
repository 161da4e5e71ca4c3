/**
 * A browser refusing cookies refuses storage too: reading `sessionStorage` throws, and React Router's
 * scroll-restoration script then throws again from its own catch (ADR 070). Run before it, this puts
 * an in-memory stand-in in its place, for as long as the page lives.
 */
export const STORAGE_STAND_IN = `(() => {
  try {
    window.sessionStorage.length
    return
  } catch {}
  const items = new Map()
  const storage = {
    get length() { return items.size },
    key: (index) => [...items.keys()][index] ?? null,
    getItem: (key) => items.get(String(key)) ?? null,
    setItem: (key, value) => void items.set(String(key), String(value)),
    removeItem: (key) => void items.delete(String(key)),
    clear: () => items.clear(),
  }
  Object.defineProperty(window, 'sessionStorage', { value: storage, configurable: true })
})()`

export function StorageStandIn({ nonce }: { nonce: string }) {
  // The browser hides the nonce once the page is parsed: hydration finds it empty.
  return <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: STORAGE_STAND_IN }} />
}
