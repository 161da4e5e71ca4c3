import type { Page } from '@playwright/test'
import type { Portal } from '../../dev/portal'
import { startAttacker, type Attacker } from '../support/attacker'
import { COMMON_LABELS, expect, portalWith, test as base, oneModePerLanguage } from './fixtures'

/**
 * The portal in another site's frame (FRAME_ANCESTORS lets the loopback "other site" frame it):
 * there its cookies are third-party ones, which the browser keeps from it (SameSite=Lax, and
 * Chromium's third-party cookie blocking), so no form of it can work. The frame says so before
 * anything is typed: from the server (the request says it is a cross-site frame), and from the
 * page's script, which tries a cookie. In a frame of the same site the cookies work: no warning.
 */

const test = base.extend<{ framing: { service: Attacker; portal: Portal } }>({
  framing: portalWith(startAttacker, (attacker) => ({
    FRAME_ANCESTORS: `${attacker.crossSiteOrigin} ${attacker.sameSiteOrigin}`,
  })),
})

const LABELS = {
  en: {
    ...COMMON_LABELS.en,
    warning: 'Please enable third-party cookies in your browser to continue.',
    help: 'How to enable them?',
  },
  fr: {
    ...COMMON_LABELS.fr,
    warning: 'Veuillez activer les cookies tiers dans votre navigateur pour continuer.',
    help: 'Comment les activer\u202f?',
  },
} as const

/** Opens a page of `origin` that frames the portal's `path`; answers the frame. */
async function framed(page: Page, attacker: Attacker, origin: string, portal: Portal, path = '/') {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Another site</title></head>
<body><iframe src="${portal.url}${path}" title="Sign-in" width="420" height="800"></iframe></body></html>`
  await page.goto(`${origin}${attacker.host(html)}`)
  return page.frameLocator('iframe')
}

for (const [lang, l] of Object.entries(LABELS)) {
  test.describe(`in ${lang}`, oneModePerLanguage(lang), () => {
    test.use({ locale: lang === 'en' ? 'en-US' : 'fr-FR' })

    test('in another site’s frame, the third-party cookie warning is there before anything is typed', async ({
      page,
      framing,
    }) => {
      const frame = await framed(page, framing.service, framing.service.crossSiteOrigin, framing.portal)
      await expect(frame.getByRole('heading', { level: 1 })).toBeVisible()
      await expect(frame.getByLabel(l.email, { exact: true })).toHaveValue('')
      const warning = frame.getByRole('alert')
      await expect(warning).toHaveCount(1)
      await expect(warning).toContainText(l.warning)
      await expect(warning.getByRole('link', { name: l.help })).toHaveAttribute('href', /^https:\/\//)
      // And on the next page of the frame.
      await frame.getByRole('link', { name: /Forgot password|Mot de passe oublié/ }).click()
      await expect(frame.getByRole('heading', { level: 1 })).not.toHaveText(/Sign In|Connexion/)
      await expect(frame.getByRole('alert')).toHaveCount(1)
      await expect(frame.getByRole('alert')).toContainText(l.warning)
    })

    test('a form sent anyway in another site’s frame is refused with the same warning, once', async ({ page, framing }) => {
      const frame = await framed(page, framing.service, framing.service.crossSiteOrigin, framing.portal, '/forgot-password')
      await frame.getByLabel(l.email, { exact: true }).fill('someone@example.com')
      await frame.getByRole('button', { name: /Send email|Envoyer le courriel/ }).click()
      await expect(frame.getByRole('heading', { level: 1 })).toHaveText(/For your security|Par sécurité/)
      await expect(frame.getByText(l.warning)).toHaveCount(1)
      await expect(frame.getByText(/cookies for this site|cookies de ce site/)).toHaveCount(0)
    })

    test('in a frame of the same site, the cookies work: no warning', async ({ page, framing }) => {
      const frame = await framed(page, framing.service, framing.service.sameSiteOrigin, framing.portal)
      await expect(frame.getByLabel(l.email, { exact: true })).toBeVisible()
      await expect(frame.getByRole('alert')).toHaveCount(0)
    })
  })
}
