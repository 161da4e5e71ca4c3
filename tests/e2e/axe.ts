import AxeBuilder from '@axe-core/playwright'
import { expect, test, type Browser, type Page } from '@playwright/test'
import axeCore, { type Result, type RunOptions } from 'axe-core'

/** The rules every page is held to: WCAG 2.2, levels A and AA. */
export const WCAG_22_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']

/**
 * axe, run in `page` itself (ADR 056). By default @axe-core/playwright merges the frames' results in a
 * new blank page: a new renderer process for every check.
 */
export const axe = (page: Page) => new AxeBuilder({ page }).setLegacyMode(true)

/**
 * The violations of these rules (or tags) on the page. A page without frames is checked by axe itself, put in the
 * page once per document and asked for violations alone: the builder injected it twice per check and
 * sent every passed rule back, 120 to 210 ms a check where axe's run takes 15 to 55.
 */
async function violations(page: Page, type: 'tag' | 'rule', values: string[]): Promise<Result[]> {
  if (page.frames().length > 1) {
    const builder = type === 'tag' ? axe(page).withTags(values) : axe(page).withRules(values)
    return (await builder.analyze()).violations
  }
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeCore.source)
  return page.evaluate(
    async (options) => (await (window as unknown as { axe: typeof axeCore }).axe.run(document, options)).violations,
    { runOnly: { type, values }, resultTypes: ['violations'] } satisfies RunOptions,
  )
}

/** The ids of the WCAG 2.2 AA rules the page breaks. axe needs JavaScript in the page: a11y.spec.ts checks the no-JS pages. */
export async function wcagViolations(page: Page): Promise<string[]> {
  return (await violations(page, 'tag', WCAG_22_AA)).map((v) => v.id)
}

/** The axe rules that depend on colours: all that differs between the light and dark schemes. */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block']

/**
 * axe runs inside the page, which needs JavaScript. Without it, the page's HTML as the visitor got
 * it is served again, at the same address and with the same styles, to a page where axe can run
 * (the app's scripts are not loaded, so it stays the no-JavaScript page), at the visitor's window size.
 * That page is made once per worker, not a context and a page for each state.
 */
const served = { url: '', html: '' }
const axePages = new WeakMap<Browser, Promise<Page>>()
function axePage(browser: Browser): Promise<Page> {
  let target = axePages.get(browser)
  if (!target) {
    target = (async () => {
      const page = await (await browser.newContext({ javaScriptEnabled: true })).newPage()
      await page.route('**/*.js', (route) => route.abort())
      await page.route(
        (url) => url.href === served.url,
        (route) => route.fulfill({ body: served.html, contentType: 'text/html; charset=utf-8' }),
      )
      return page
    })()
    axePages.set(browser, target)
  }
  return target
}

/** No WCAG 2.2 AA violation on the page as it is, light and dark; without JavaScript, on its HTML served again. */
export async function expectNoViolations(page: Page, state: string) {
  if (test.info().project.name !== 'no-js') return expectAccessible(page, state)
  await expectHtmlAccessible(page.context().browser()!, { url: page.url(), html: await page.content(), viewport: page.viewportSize()! }, state)
}

/** No violation in this HTML, as the page at `url` would show it without its scripts. */
export async function expectHtmlAccessible(
  browser: Browser,
  { url, html, viewport }: { url: string; html: string; viewport: { width: number; height: number } },
  state: string,
) {
  Object.assign(served, { url, html })
  const target = await axePage(browser)
  await target.setViewportSize(viewport)
  await target.goto(url)
  await expectAccessible(target, state)
}

async function expectAccessible(target: Page, state: string) {
  const found: string[] = []
  const list = (scheme: string, broken: { id: string; nodes: { target: unknown[] }[] }[]) =>
    broken.map((v) => `${scheme} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
  try {
    // The state as the page shows it, not where the test's last click left the mouse: Chromium keeps a
    // hovered button in the hover colour of the scheme emulated before (dark's, light blue) after a switch.
    await target.mouse.move(0, 0)
    await target.emulateMedia({ colorScheme: 'light' })
    await target.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished)))
    found.push(...list('light', await violations(target, 'tag', WCAG_22_AA)))
    // The same page in dark: only colours change, so only the colour rules are run again.
    await target.emulateMedia({ colorScheme: 'dark' })
    await target.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished)))
    found.push(...list('dark', await violations(target, 'rule', COLOUR_RULES)))
  } finally {
    await target.emulateMedia({ colorScheme: 'light' })
  }
  expect(found, `axe violations on ${state}`).toEqual([])
}
