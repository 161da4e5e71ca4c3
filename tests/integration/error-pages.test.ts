import { createServer, request, type RequestOptions, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import en from '../../locales/en/common.json'
import fr from '../../locales/fr/common.json'
import { HttpBrowser } from '../support/http-browser'
import { startPortal, type Portal } from '../../dev/portal'

/**
 * The error page: every status the portal answers with it has its own
 * translated heading and a line saying what to do, with a way back to sign-in, in both languages.
 * Against the production build, as a browser without JavaScript receives it.
 */
const LANGUAGES = { en, fr } as const
type Language = keyof typeof LANGUAGES
/** The statuses whose heading is their own (404 keeps error.pageNotFound). */
type TitledStatus = Exclude<keyof typeof en.errorPage, '404' | 'other'>

function heading(html: string): string | null {
  const match = /<h1[^>]*>([\s\S]*?)<\/h1>/.exec(html)
  return match ? decode(match[1]!.replace(/<[^>]+>/g, '')) : null
}

function title(html: string): string | null {
  const match = /<title>([\s\S]*?)<\/title>/.exec(html)
  return match ? decode(match[1]!) : null
}

function decode(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
}

/** What every error page has: the logo (the mark and the brand's name), the heading, the status's line, a link to sign-in. */
function expectErrorPage(html: string, language: Language, status: TitledStatus) {
  const texts = LANGUAGES[language]
  expect(html).toContain(`<html lang="${language === 'en' ? 'en-US' : 'fr-FR'}"`)
  // One title, in the page's language, also where the root loader did not run (a failed form post).
  expect(html.match(/<title>/g)?.length).toBe(1)
  expect(title(html)).toBe(`${texts.meta.error} · ${texts.brand.name}`)
  expect(heading(html)).toBe(texts.errorPage[status].title)
  expect(decode(html)).toContain(texts.errorPage[status].text)
  expect(html).toMatch(new RegExp(`<a href="/" class="logo"><svg class="logo-mark"[^>]*>[\\s\\S]*?</svg><span class="logo-name">${texts.brand.name}</span></a>`))
  expect(decode(html)).toMatch(new RegExp(`<a [^>]*href="/"[^>]*>${texts.error.backToSignIn}</a>`))
  expect(heading(html)).not.toBe(texts.message.unknownError)
}

describe('error pages of the statuses the portal answers with', () => {
  const portal = inject('portal')

  /** `/` asked through node:http, which sends what fetch refuses to (a bad Host, TRACE). */
  function rawGet(options: RequestOptions): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request(`${portal.url}/`, options, (res) => {
        let body = ''
        res.on('data', (c: Buffer) => (body += c.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      })
      req.on('error', reject)
      req.end()
    })
  }

  function browser(language: Language) {
    const b = new HttpBrowser(portal.url)
    b.plant('i18n_redirected', language)
    return b
  }

  it('has a heading and a line of its own for each status, different in French and English', () => {
    for (const [status, copy] of Object.entries(en.errorPage)) {
      const french = fr.errorPage[status as keyof typeof fr.errorPage]
      if ('title' in copy) expect((french as { title: string }).title, status).not.toBe(copy.title)
      expect(french.text, status).not.toBe(copy.text)
    }
    expect(en.errorPage['405'].title).toBe('This page cannot be used that way')
  })

  it.each(['fr', 'en'] as const)('DELETE / answers 405 headed in words, not "Method not allowed" (%s)', async (language) => {
    const res = await fetch(`${portal.url}/`, { method: 'DELETE', headers: { Cookie: `i18n_redirected=${language}` } })
    expect(res.status).toBe(405)
    expectErrorPage(await res.text(), language, '405')
  })

  it.each(['fr', 'en'] as const)('PUT /forgot-password answers 400 headed by its status (%s)', async (language) => {
    const res = await fetch(`${portal.url}/forgot-password`, {
      method: 'PUT',
      headers: { Cookie: `i18n_redirected=${language}` },
    })
    expect(res.status).toBe(400)
    expectErrorPage(await res.text(), language, '400')
  })

  it.each(['fr', 'en'] as const)(
    'a path that does not decode is the not-found page, not plain text (%s)',
    async (language) => {
      const res = await browser(language).get('/forgot%password')
      expect(res.status).toBe(404)
      expect(res.headers.get('content-type')).toContain('text/html')
      expect(heading(await res.text())).toBe(`${LANGUAGES[language].error.pageNotFound} /forgot%password`)
    },
  )

  it.each(['fr', 'en'] as const)(
    'a form post without its token answers 403 with the existing explanation (%s)',
    async (language) => {
      const b = browser(language)
      await b.get('/')
      const res = await fetch(`${portal.url}/?index`, {
        method: 'POST',
        headers: { Cookie: `i18n_redirected=${language}; csrf=${b.cookie('csrf') ?? ''}`, Origin: portal.url },
        body: new URLSearchParams({ csrf: 'forged', email: 'a@example.com', password: 'x' }),
      })
      expect(res.status).toBe(403)
      expectErrorPage(await res.text(), language, '403')
    },
  )

  it.each(['fr', 'en'] as const)(
    'an unknown page keeps its 404 heading, the path, and says what to do (%s)',
    async (language) => {
      const res = await browser(language).get('/nope/nothing-here')
      expect(res.status).toBe(404)
      const html = await res.text()
      expect(heading(html)).toBe(`${LANGUAGES[language].error.pageNotFound} /nope/nothing-here`)
      expect(decode(html)).toContain(LANGUAGES[language].errorPage['404'].text)
    },
  )

  it.each(['fr', 'en'] as const)(
    'a form over the body limit answers 413 as the translated error page (%s)',
    async (language) => {
      for (const chunked of [false, true]) {
        const body = `email=${'a'.repeat(20 * 1024)}`
        const res = await fetch(`${portal.url}/forgot-password`, {
          method: 'POST',
          headers: { Cookie: `i18n_redirected=${language}`, 'Content-Type': 'application/x-www-form-urlencoded' },
          body: chunked ? new Blob([body]).stream() : body,
          ...(chunked ? { duplex: 'half' } : {}),
        } as RequestInit)
        expect(res.status, chunked ? 'chunked' : 'announced').toBe(413)
        expect(res.headers.get('connection')).toBe('close')
        expectErrorPage(await res.text(), language, '413')
      }
    },
  )

  it.each(['fr', 'en'] as const)(
    'an address over 8 KiB answers 414 as the translated error page (%s)',
    async (language) => {
      const res = await browser(language).get(`/?redirect=${'a'.repeat(9000)}`)
      expect(res.status).toBe(414)
      expectErrorPage(await res.text(), language, '414')
    },
  )

  it.each(['fr', 'en'] as const)('an unparseable Host header answers 400, not a plain 500 (%s)', async (language) => {
    const answer = await rawGet({ headers: { Host: 'a b', Cookie: `i18n_redirected=${language}` } })
    expect(answer.status).toBe(400)
    expectErrorPage(answer.body, language, '400')
  })

  it.each(['fr', 'en'] as const)('TRACE answers 405 as the error page, not a plain 500 (%s)', async (language) => {
    const answer = await rawGet({ method: 'TRACE', headers: { Cookie: `i18n_redirected=${language}` } })
    expect(answer.status).toBe(405)
    expectErrorPage(answer.body, language, '405')
  })
})

describe('the identity service failing behind the emailed links', () => {
  let service: Server
  let portal: Portal
  /** What the service answers to a code check: 503 (down), 429 (over its quota) or 200 (back up: a good reset code). */
  let failWith = 503

  beforeAll(async () => {
    service = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        if ((req.url ?? '').includes('accounts:resetPassword') && failWith === 200) {
          res.writeHead(200, { 'Content-Type': 'application/json' })
          res.end(JSON.stringify({ email: 'camille@example.com', requestType: 'PASSWORD_RESET' }))
          return
        }
        if ((req.url ?? '').includes('accounts:resetPassword')) {
          const message = failWith === 429 ? 'TOO_MANY_ATTEMPTS_TRY_LATER' : 'UNAVAILABLE'
          res.writeHead(failWith, { 'Content-Type': 'application/json' })
          res.end(JSON.stringify({ error: { code: failWith, message } }))
          return
        }
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}')
      })
    })
    await new Promise<void>((r) => service.listen(0, '127.0.0.1', r))
    portal = await startPortal({
      FIREBASE_AUTH_EMULATOR_HOST: `127.0.0.1:${(service.address() as AddressInfo).port}`,
      FIREBASE_PROJECT_ID: 'demo-error-pages',
    })
  })

  afterAll(async () => {
    await portal?.stop()
    service.closeAllConnections()
    await new Promise((r) => service.close(r))
  })

  async function openLink(language: Language, link: string, landing: string) {
    const b = new HttpBrowser(portal.url)
    b.plant('i18n_redirected', language)
    const first = await b.get(link)
    expect(first.status).toBe(302)
    expect(first.headers.get('location')).toBe(landing)
    return Object.assign(await b.get(landing), { browser: b })
  }

  it.each(['fr', 'en'] as const)(
    'a 503 on a reset link offers "Try again" at the same address, which keeps the link (%s)',
    async (language) => {
      failWith = 503
      const texts = LANGUAGES[language]
      const res = await openLink(language, '/new-password?oobCode=some-code', '/new-password')
      expect(res.status).toBe(503)
      const html = decode(await res.text())
      expect(html).toMatch(new RegExp(`<a [^>]*href="/new-password"[^>]*>${texts.error.retry}</a>`))
      expect(html).toMatch(new RegExp(`<a [^>]*href="/"[^>]*>${texts.error.backToSignIn}</a>`))

      failWith = 200
      const again = await res.browser.get('/new-password')
      expect(again.status).toBe(200)
      expect(heading(await again.text())).toBe(texts.newPassword.title)
    },
  )

  for (const [status, name] of [
    [503, 'down'],
    [429, 'over its quota'],
  ] as const) {
    it.each(['fr', 'en'] as const)(
      `the new-password link answers a ${status} page while the service is ${name} (%s)`,
      async (language) => {
        failWith = status
        const res = await openLink(language, '/new-password?oobCode=some-code', '/new-password')
        expect(res.status).toBe(status)
        expectErrorPage(await res.text(), language, String(status) as '503' | '429')
      },
    )

    it.each(['fr', 'en'] as const)(
      `the action link answers a ${status} page while the service is ${name} (%s)`,
      async (language) => {
        failWith = status
        const res = await openLink(language, '/action?mode=verifyEmail&oobCode=some-code&apiKey=k', '/action')
        expect(res.status).toBe(status)
        expectErrorPage(await res.text(), language, String(status) as '503' | '429')
      },
    )
  }
})
