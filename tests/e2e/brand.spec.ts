import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { darkAccent, parseHex } from '../../app/lib/contrast'
import { expect, ownPortal, testOn, oneModePerLanguage } from './fixtures'

/**
 * The operator's brand (docs/brand.md; ADR 040) in the browser, on a portal started with
 * BRAND_NAME, BRAND_NAME_FR, BRAND_ACCENT, BRAND_LOGO and BRAND_LOGO_DARK: the header's logo named
 * by the brand in each language, the titles, and the accent on the buttons in either scheme.
 */
const dir = mkdtempSync(path.join(tmpdir(), 'brand-e2e-'))
const logo = (name: string, fill: string) => {
  const file = path.join(dir, name)
  writeFileSync(
    file,
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 160 40"><rect width="160" height="40" rx="8" fill="${fill}"/></svg>`,
  )
  return file
}

const test = testOn(ownPortal(() => ({
    BRAND_NAME: 'Acme',
    BRAND_NAME_FR: 'Acmé',
    BRAND_ACCENT: '#7a1fa2',
    BRAND_LOGO: logo('acme.svg', '#7a1fa2'),
    BRAND_LOGO_DARK: logo('acme-dark.svg', '#e0c0f0'),
  })))

const rgb = (hex: string) => `rgb(${parseHex(hex)!.join(', ')})`

for (const [locale, name, title, button] of [
  ['fr-FR', 'Acmé', 'Connexion · Acmé', 'Se connecter'],
  ['en-US', 'Acme', 'Sign In · Acme', 'Login'],
] as const) {
  test.describe(`in ${locale}`, oneModePerLanguage(locale), () => {
    test.use({ locale })

    test('the header shows the logo named by the brand, and the titles follow', async ({ page }) => {
      await page.goto('/')
      await expect(page).toHaveTitle(title)
      const image = page.getByRole('banner').getByRole('img', { name, exact: true })
      await expect(image).toBeVisible()
      await expect(page.getByRole('link', { name, exact: true })).toHaveAttribute('href', '/')
      expect(await image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true)
      await page.goto('/forgot-password')
      await expect(page).toHaveTitle(new RegExp(` · ${name}$`))
    })

    for (const scheme of ['light', 'dark'] as const) {
      test.describe(`(${scheme})`, () => {
        test.use({ colorScheme: scheme })
        test('the accent colours the main button and the links; the logo is the scheme’s', async ({ page }) => {
          await page.goto('/')
          const accent = scheme === 'light' ? '#7a1fa2' : darkAccent(parseHex('#7a1fa2')!)
          const expected = typeof accent === 'string' ? rgb(accent) : `rgb(${accent.join(', ')})`
          await expect(page.getByRole('button', { name: button })).toHaveCSS('background-color', expected)
          await expect(page.getByRole('main').getByRole('link').first()).toHaveCSS('color', expected)
          const image = page.getByRole('banner').getByRole('img', { name, exact: true })
          await expect
            .poll(() => image.evaluate((img: HTMLImageElement) => img.currentSrc))
            .toMatch(scheme === 'light' ? /\/brand\/logo-[0-9a-f]{16}\.svg$/ : /\/brand\/logo-dark-[0-9a-f]{16}\.svg$/)
          await expect(image, 'a logo for each scheme needs no plate').toHaveCSS('background-color', 'rgba(0, 0, 0, 0)')
        })
      })
    }
  })
}

/** Only BRAND_LOGO: a logo drawn for light backgrounds, which the dark scheme shows on a plate of its muted text colour, not a glaring light one. */
const lightOnly = testOn(ownPortal(() => ({ BRAND_NAME: 'Acme', BRAND_LOGO: logo('acme-light-only.svg', '#7a1fa2') })))

for (const [scheme, plate] of [
  ['light', 'rgba(0, 0, 0, 0)'],
  ['dark', rgb('#b4bfcd')],
] as const) {
  lightOnly.describe(`without BRAND_LOGO_DARK (${scheme})`, () => {
    lightOnly.use({ colorScheme: scheme, locale: 'en-US' })
    lightOnly(`the one logo is shown, ${scheme === 'dark' ? 'on a muted plate' : 'as it is'} @once`, async ({ page }) => {
      await page.goto('/')
      const image = page.getByRole('banner').getByRole('img', { name: 'Acme', exact: true })
      await expect(image).toHaveCSS('background-color', plate)
      await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.currentSrc)).toMatch(/\/brand\/logo-[0-9a-f]{16}\.svg$/)
      // Still 40 px high: the plate is around the logo, not taken from it.
      expect((await image.evaluate((img) => img.getBoundingClientRect().height)) - (scheme === 'dark' ? 12 : 0)).toBe(40)
    })
  })
}
