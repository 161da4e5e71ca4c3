/**
 * When a page's script cannot be loaded during a client navigation (e.g. a
 * deploy replaced it), React Router reloads the page the visitor is on. This sends them on to the page they
 * asked for instead, at most once per 10 seconds so that a broken page cannot loop. When it gives up,
 * the page says which address could not be reached (error.accessError), with a link to retry.
 */
const TARGET = 'portal:navigation-target'
const GUARD = 'portal:reload-guard'
const GUARD_MS = 10_000

function storage(): Storage | null {
  try {
    return window.sessionStorage
  } catch {
    return null
  }
}

/** Remembers where a click on a link of ours is going, until that page has loaded. */
export function watchLinkClicks() {
  document.addEventListener(
    'click',
    (event) => {
      const link = (event.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null
      if (!link || link.origin !== window.location.origin || link.target) return
      storage()?.setItem(TARGET, JSON.stringify({ to: link.pathname + link.search, at: Date.now() }))
    },
    { capture: true },
  )
}

/** A navigation finished: nothing to resume. */
export function navigationArrived() {
  storage()?.removeItem(TARGET)
}

/** The address a navigation could not reach after the guard gave up, until the page has said so. */
let unreachable: string | null = null

/** At start-up: if the last click was cut short by a reload, go where it was going. Returns true when leaving. */
export function resumeInterruptedNavigation(): boolean {
  const store = storage()
  const saved = store?.getItem(TARGET)
  store?.removeItem(TARGET)
  if (!store || !saved) return false
  const { to, at } = JSON.parse(saved) as { to: string; at: number }
  const here = window.location.pathname + window.location.search
  if (to === here || Date.now() - at > GUARD_MS || !to.startsWith('/') || to.startsWith('//')) return false
  // A reload to a target already failed within the guard's time: stop, and say so.
  if (Date.now() - Number(store.getItem(GUARD) ?? 0) < GUARD_MS) {
    unreachable = to
    return false
  }
  store.setItem(GUARD, String(Date.now()))
  window.location.replace(to)
  return true
}

/** The address the guard gave up on at start-up (once): the page shows error.accessError for it. */
export function takeUnreachableTarget(): string | null {
  const to = unreachable
  unreachable = null
  return to
}
