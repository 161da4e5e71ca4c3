/**
 * One instance per process, even when a module is evaluated twice: by the Vite dev server on
 * reload, or once in the Remix build and once in the HTTP server bundle (connection pools,
 * rate limiters and the logger must be shared, and closed once at shutdown).
 */
export function singleton<T>(name: string, create: () => T): T {
  const store = globalThis as unknown as { __authPortalSingletons?: Map<string, unknown> }
  store.__authPortalSingletons ??= new Map()
  if (!store.__authPortalSingletons.has(name)) store.__authPortalSingletons.set(name, create())
  return store.__authPortalSingletons.get(name) as T
}
