import type { Browser, BrowserContext, BrowserContextOptions, Page } from '@playwright/test'

/**
 * One browser context and page per worker and set of context options, handed from test to test
 * and put back as new between them. A new page is a new renderer process: measured here, about
 * 1 CPU-second for each test on a 2-core machine, more than most tests' own work (ADR 053).
 *
 * Put back as new: cookies, permissions, routes, the test's listeners, other pages, viewport,
 * media emulation, the storage of every origin the page visited, the HTTP cache, and the page
 * itself (about:blank). What cannot be undone (an init script, a fake clock, an exposed
 * function, a closed page) retires the context instead: the next test gets a new one.
 */
const PAGE_EVENTS = [
  'close',
  'console',
  'crash',
  'dialog',
  'domcontentloaded',
  'download',
  'filechooser',
  'frameattached',
  'framedetached',
  'framenavigated',
  'load',
  'pageerror',
  'popup',
  'request',
  'requestfailed',
  'requestfinished',
  'response',
  'websocket',
  'worker',
] as const
const CONTEXT_EVENTS = [
  'close',
  'console',
  'dialog',
  'page',
  'request',
  'requestfailed',
  'requestfinished',
  'response',
  'weberror',
] as const

/** The client's event emitter, whose listing the typed API leaves out. */
type Listener = (...args: never[]) => unknown
interface Emitter {
  listeners(event: string): Listener[]
  off(event: string, listener: Listener): unknown
}
const emitter = (target: Page | BrowserContext) => target as unknown as Emitter

/** What the test added: the listeners there now that were not there before it. */
function listenersOf(target: Page | BrowserContext, events: readonly string[]): Map<string, Listener[]> {
  return new Map(events.map((event) => [event, [...emitter(target).listeners(event)]]))
}
function removeAdded(target: Page | BrowserContext, before: Map<string, Listener[]>) {
  for (const [event, kept] of before) {
    for (const listener of emitter(target).listeners(event))
      if (!kept.includes(listener)) emitter(target).off(event, listener)
  }
}

export interface Pooled {
  context: BrowserContext
  page: Page
  options: BrowserContextOptions
  /** Something the test did cannot be undone: retire this context after it. */
  spoiled: boolean
  /** The http(s) origins the page visited during the test: their storage is emptied after it. */
  origins: Set<string>
  /** The listeners there when the test began: any other was added by the test. */
  listenersBefore: { page: Map<string, Listener[]>; context: Map<string, Listener[]> }
}

/** Calls of these mark the page as spoiled (they outlive a navigation and cannot be removed). */
function markIrreversible(pooled: Pooled) {
  const spoil = <T extends object>(target: T, names: string[]) => {
    for (const name of names) {
      const original = (target as Record<string, unknown>)[name]
      if (typeof original !== 'function') continue
      Object.defineProperty(target, name, {
        configurable: true,
        value: (...args: unknown[]) => {
          pooled.spoiled = true
          return (original as (...a: unknown[]) => unknown).apply(target, args)
        },
      })
    }
  }
  spoil(pooled.page, ['addInitScript', 'exposeFunction', 'exposeBinding', 'close'])
  spoil(pooled.context, [
    'addInitScript',
    'exposeFunction',
    'exposeBinding',
    'setExtraHTTPHeaders',
    'setOffline',
    'setGeolocation',
    'setHTTPCredentials',
  ])
  spoil(pooled.page.clock, ['install', 'setFixedTime', 'setSystemTime', 'fastForward', 'runFor', 'pauseAt', 'resume'])
}

export class PagePool {
  private readonly pooled = new Map<string, Pooled>()

  constructor(private readonly browser: Browser) {}

  async take(options: BrowserContextOptions): Promise<Pooled> {
    const key = JSON.stringify(options)
    let pooled = this.pooled.get(key)
    if (!pooled) {
      const context = await this.browser.newContext(options)
      const page = await context.newPage()
      pooled = {
        context,
        page,
        options,
        spoiled: false,
        origins: new Set(),
        listenersBefore: { page: new Map(), context: new Map() },
      }
      const origins = pooled.origins
      page.on('framenavigated', (frame) => {
        const { origin, protocol } = new URL(frame.url())
        if (protocol === 'http:' || protocol === 'https:') origins.add(origin)
      })
      markIrreversible(pooled)
      this.pooled.set(key, pooled)
    }
    pooled.listenersBefore = {
      page: listenersOf(pooled.page, PAGE_EVENTS),
      context: listenersOf(pooled.context, CONTEXT_EVENTS),
    }
    return pooled
  }

  /** After a test: the context as new, or retired. */
  async putBack(pooled: Pooled): Promise<void> {
    const { context, page, options } = pooled
    const key = JSON.stringify(options)
    try {
      if (pooled.spoiled || page.isClosed()) throw new Error('spoiled')
      for (const other of context.pages()) if (other !== page) await other.close()
      removeAdded(page, pooled.listenersBefore.page)
      removeAdded(context, pooled.listenersBefore.context)
      await page.unrouteAll({ behavior: 'ignoreErrors' })
      await context.unrouteAll({ behavior: 'ignoreErrors' })
      // Each visited origin's storage, emptied from a blank page of that origin that never reaches its server.
      for (const origin of pooled.origins) {
        const blank = `${origin}/__e2e_page_pool_reset`
        await page.route(blank, (route) =>
          route.fulfill({ body: '<!doctype html><title>reset</title>', contentType: 'text/html' }),
        )
        await page.goto(blank)
        await page.evaluate(() => {
          localStorage.clear()
          sessionStorage.clear()
        })
        await page.unrouteAll()
      }
      pooled.origins.clear()
      await page.goto('about:blank')
      await context.clearCookies()
      await context.clearPermissions()
      const cdp = await context.newCDPSession(page)
      await cdp.send('Network.clearBrowserCache')
      await cdp.detach()
      if (options.viewport) await page.setViewportSize(options.viewport)
      // The context's own media (Playwright's defaults where it set none): null would turn emulation off instead.
      await page.emulateMedia({
        media: null,
        colorScheme: options.colorScheme === undefined ? 'light' : options.colorScheme,
        reducedMotion: options.reducedMotion ?? 'no-preference',
        forcedColors: options.forcedColors ?? 'none',
        contrast: options.contrast ?? 'no-preference',
      })
    } catch {
      this.pooled.delete(key)
      await context.close().catch(() => {})
    }
  }

  async close(): Promise<void> {
    for (const { context } of this.pooled.values()) await context.close().catch(() => {})
    this.pooled.clear()
  }
}
