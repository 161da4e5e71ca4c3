// When a page's script cannot load during a client navigation (a deploy replaced it), React Router reloads the
// current page. This goes on to the page asked for instead, at most once per 10 s so a broken page cannot loop.
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

export function navigationArrived() {
  storage()?.removeItem(TARGET)
}

let unreachable: string | null = null

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

export function takeUnreachableTarget(): string | null {
  const to = unreachable
  unreachable = null
  return to
}
