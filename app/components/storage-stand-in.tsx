/**
 * A browser that refuses cookies refuses storage too: reading `sessionStorage` throws SecurityError.
 * React Router's scroll-restoration script reads it before the page is hydrated and, when that
 * throws, throws again from its own catch (ADR 070). This script runs first and, only then, puts an
 * in-memory stand-in in its place, which lasts as long as the page: scroll positions are kept
 * within the visit, as the router does when it cannot save them.
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
