import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import puppeteer, { type Browser, type BrowserContext, type ElementHandle, type HTTPResponse, type Page } from 'puppeteer-core'

/**
 * Debian's Firefox ESR, driven by puppeteer-core over WebDriver BiDi (ADR 070); never a downloaded
 * browser. JavaScript is switched off by the profile's own preference, as a visitor would. With it off
 * the page runs no script, and no promise of puppeteer's settles in it either (waitForFunction, $$eval):
 * every wait here is polled from Node, and every action is a key press on a focused element.
 */
export const FIREFOX = '/usr/bin/firefox-esr'
/** puppeteer-core's setViewport sends WebDriver BiDi commands that ESR 140 does not know (`emulation.setScreenOrientationOverride`). */
const FIREFOX_MIN_MAJOR = 153

export async function launchFirefox(options: { javaScript: boolean; cookies?: boolean }): Promise<Browser> {
  if (!existsSync(FIREFOX)) throw new Error(`${FIREFOX} is missing: install Debian's firefox-esr package (.ci/run does)`)
  const version = execFileSync(FIREFOX, ['--version'], { encoding: 'utf8' }).trim()
  if (Number(/(\d+)\./.exec(version)?.[1]) < FIREFOX_MIN_MAJOR) {
    throw new Error(`${version} is older than ESR ${FIREFOX_MIN_MAJOR}: apt-get update && apt-get install firefox-esr`)
  }
  return puppeteer.launch({
    browser: 'firefox',
    protocol: 'webDriverBiDi',
    executablePath: FIREFOX,
    headless: true,
    extraPrefsFirefox: {
      'javascript.enabled': options.javaScript,
      'intl.accept_languages': 'fr-FR, fr',
      // Classic 12 px scrollbars, as on a desktop: a long page is that much narrower.
      'widget.gtk.overlay-scrollbars.enabled': false,
      // 2: no cookie at all, and no storage either (sessionStorage throws SecurityError).
      ...(options.cookies === false ? { 'network.cookie.cookieBehavior': 2 } : {}),
    },
  })
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A tab in a browser context of its own (its own cookies), with what the page logged as errors. */
export class Tab {
  private readonly errors: string[] = []
  private readonly reading: Promise<unknown>[] = []
  readonly answers: string[] = []

  private constructor(
    readonly page: Page,
    private readonly context: BrowserContext,
    readonly javaScript: boolean,
    private readonly base: string,
  ) {
    page.on('console', (message) => {
      if (message.type() !== 'error') return
      // An Error argument reads as "JSHandle@error": its message is asked of the page.
      const parts = message.args().map((arg) =>
        arg.evaluate((value) => (value instanceof Error ? `${value.name}: ${value.message}` : String(value))).catch(() => '?'),
      )
      const where = message.location().url ?? ''
      this.reading.push(Promise.all(parts).then((text) => this.errors.push(`console: ${text.join(' ')} (${where})`)))
    })
    page.on('pageerror', (error) => this.errors.push(`uncaught: ${String(error)}`))
    page.on('response', (response) => {
      const url = new URL(response.url())
      if (url.origin === base) this.answers.push(`${response.request().method()} ${response.status()} ${url.pathname}`)
    })
  }

  static async open(browser: Browser, base: string, options: { javaScript: boolean; width?: number }): Promise<Tab> {
    const context = await browser.createBrowserContext()
    const page = await context.newPage()
    await page.setViewport({ width: options.width ?? 1280, height: 720 })
    return new Tab(page, context, options.javaScript, base)
  }

  async reportedErrors(): Promise<string[]> {
    await Promise.all(this.reading)
    return this.errors
  }

  /** With JavaScript the page's own requests end first: leaving in their midst, Firefox logs them as failed. */
  async goto(path: string): Promise<HTTPResponse | null> {
    if (this.javaScript) await this.page.waitForNetworkIdle({ idleTime: 200, timeout: 10_000 })
    return this.page.goto(new URL(path, this.base).href)
  }

  async text(): Promise<string> {
    return this.page.evaluate('document.body ? document.body.innerText : ""').then(String, () => '')
  }

  async waitFor(pattern: RegExp | string, timeoutMs = 15_000): Promise<string> {
    const until = Date.now() + timeoutMs
    let text = ''
    while (Date.now() < until) {
      text = await this.text()
      if (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text)) return text
      await sleep(100)
    }
    throw new Error(`waited ${timeoutMs} ms for ${String(pattern)} on ${this.page.url()}; the page said:\n${text}`)
  }

  async field(label: string): Promise<ElementHandle<Element>> {
    const script = `[...document.querySelectorAll('label')].find((l) => l.textContent.trim() === ${JSON.stringify(label)})?.control ?? null`
    return this.element(script, `a field labelled "${label}"`)
  }

  async fill(label: string, value: string) {
    const field = await this.field(label)
    await field.evaluate((input) => ((input as HTMLInputElement).value = ''))
    await field.type(value)
  }

  /** Enter on the button or link whose text is `name`; without JavaScript, waits for the next page. */
  async press(name: string): Promise<HTTPResponse | null> {
    const script = `[...document.querySelectorAll('button, a')].find((e) => e.textContent.trim() === ${JSON.stringify(name)}) ?? null`
    const control = await this.element(script, `a button or link "${name}"`)
    await control.focus()
    if (this.javaScript) {
      await this.page.keyboard.press('Enter')
      return null
    }
    const [response] = await Promise.all([this.page.waitForNavigation(), this.page.keyboard.press('Enter')])
    return response
  }

  async lang(): Promise<string> {
    return String(await this.page.evaluate('document.documentElement.lang'))
  }

  async cookieNames(): Promise<string[]> {
    return (await this.context.cookies()).map((c) => c.name)
  }

  /** The lines taken by the text of the first `selector` that reads `text`. */
  async linesOf(selector: string, text: string): Promise<number> {
    const lines = await this.page.evaluate(`(() => {
      const element = [...document.querySelectorAll(${JSON.stringify(selector)})].find((e) => e.textContent.trim() === ${JSON.stringify(text)})
      if (!element) return -1
      const range = document.createRange()
      range.selectNodeContents(element)
      return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size
    })()`)
    if (lines === -1) throw new Error(`no ${selector} reads "${text}" on ${this.page.url()}`)
    return Number(lines)
  }

  async scrollbarWidth(): Promise<number> {
    return Number(await this.page.evaluate('window.innerWidth - document.documentElement.clientWidth'))
  }

  async close() {
    await this.context.close()
  }

  private async element(script: string, what: string): Promise<ElementHandle<Element>> {
    const until = Date.now() + 10_000
    while (Date.now() < until) {
      const handle = await this.page.evaluateHandle(script).catch(() => null)
      const element = handle?.asElement() as ElementHandle<Element> | null | undefined
      if (element) return element
      await sleep(100)
    }
    throw new Error(`no ${what} on ${this.page.url()}; the page said:\n${await this.text()}`)
  }
}
