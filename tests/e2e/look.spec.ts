import type { Page } from '@playwright/test'
import { uniqueEmail } from '../../dev/emulator'
import { contrast } from '../../app/lib/contrast'
import { axe } from './axe'
import { type Admin, expect, openNewPassword, signIn, test } from './fixtures'

/**
 * The look: the logo centred over the card and visible in either scheme, the show-password toggle,
 * placeholders that fit a 320 px screen, the footer's notice. Each runs with JavaScript on and off (the two projects).
 */

const PASSWORD = 'Old-password-2024'

/**
 * Where the logo is centred, relative to the card's centre, in CSS pixels: from the mark's left edge
 * to the end of the name's text (a range's box: what is drawn, not the element's).
 */
async function logoOffsetFromCard(page: Page): Promise<{ offset: number; left: number; right: number }> {
  return page.evaluate(() => {
    const mark = document.querySelector('.logo-mark')!.getBoundingClientRect()
    const range = document.createRange()
    range.selectNodeContents(document.querySelector('.logo-name')!)
    const name = range.getBoundingClientRect()
    const [left, right] = [Math.min(mark.left, name.left), Math.max(mark.right, name.right)]
    const card = document.querySelector('main')!.getBoundingClientRect()
    return { offset: (left + right) / 2 - (card.left + card.right) / 2, left, right }
  })
}

/** WCAG contrast of two computed CSS colours (rgb()). */
function contrastOf(a: string, b: string): number {
  const rgb = (css: string) => css.match(/\d+(\.\d+)?/g)!.slice(0, 3).map(Number) as [number, number, number]
  return contrast(rgb(a), rgb(b))
}

test.describe('the logo', () => {
  test.use({ colorScheme: 'light' })
  for (const width of [320, 1280]) {
    test(`is centred over the card at ${width} px`, async ({ page }) => {
      await page.setViewportSize({ width, height: 800 })
      await page.goto('/')
      const { offset, left, right } = await logoOffsetFromCard(page)
      expect(right - left, 'the logo draws something').toBeGreaterThan(100)
      expect(Math.abs(offset), `drawn from ${left} to ${right}, ${offset} px off the card's centre`).toBeLessThanOrEqual(6)
    })
  }

  for (const [locale, name] of [
    ['fr-FR', 'Portail d’authentification'],
    ['en-US', 'Authentication portal'],
  ] as const) {
    test.describe(locale, () => {
      test.use({ locale })
      test('is a wordless mark beside the brand’s name as text, in the page’s language', async ({ page }) => {
        await page.goto('/')
        const link = page.getByRole('banner').getByRole('link', { name, exact: true })
        await expect(link).toHaveAttribute('href', '/')
        await expect(link).toHaveText(name)
        await expect(link.locator('svg')).toHaveAttribute('aria-hidden', 'true')
        await expect(page).toHaveTitle(new RegExp(` · ${name}$`))
      })
    })
  }

  for (const scheme of ['light', 'dark'] as const) {
    test.describe(scheme, () => {
      test.use({ colorScheme: scheme })
      test('its mark stands out from the page (3:1, WCAG 1.4.11) and its lock from the tile', async ({ page }) => {
        await page.goto('/')
        const colours = await page.evaluate(() => ({
          tile: getComputedStyle(document.querySelector('.logo-mark rect')!).fill,
          lock: getComputedStyle(document.querySelector('.logo-mark path')!).fill,
          page: getComputedStyle(document.body).backgroundColor,
        }))
        expect(contrastOf(colours.tile, colours.page), `${colours.tile} on ${colours.page}`).toBeGreaterThanOrEqual(3)
        expect(contrastOf(colours.lock, colours.tile), `${colours.lock} on ${colours.tile}`).toBeGreaterThanOrEqual(4.5)
      })
    })
  }
})

/** Opens the new-password page from a fresh reset email. */
async function newPasswordPage(page: Page, admin: Admin) {
  const email = uniqueEmail('look-reset')
  await admin.createUser(email, PASSWORD)
  await openNewPassword(page, admin, email)
}

/**
 * Types into `field`, selects part of it, then shows and hides it with its toggle (a click, then
 * the keyboard): the value and the selection stay, the type follows, aria-pressed says which, and
 * no request leaves the page.
 */
async function checkToggle(page: Page, fieldLabel: string, toggleName: string, nth = 0) {
  const field = page.getByLabel(fieldLabel, { exact: true })
  const toggle = page.getByRole('button', { name: toggleName, exact: true }).nth(nth)
  const requests: string[] = []
  // A submission is a POST (a fetcher or a form) or a navigation; React Router may fetch its manifest meanwhile.
  page.on('request', (request) => {
    if (request.method() !== 'GET' || request.isNavigationRequest()) requests.push(`${request.method()} ${request.url()}`)
  })
  const url = page.url()

  await field.fill('Typed-secret-123')
  await field.evaluate((input: HTMLInputElement) => input.setSelectionRange(2, 7))
  await expect(field).toHaveAttribute('type', 'password')
  await expect(toggle).toHaveAttribute('aria-pressed', 'false')
  await expect(toggle).toHaveAttribute('type', 'button')

  await toggle.click()
  await expect(field).toHaveAttribute('type', 'text')
  await expect(toggle).toHaveAttribute('aria-pressed', 'true')
  await expect(field).toHaveValue('Typed-secret-123')
  expect(await field.evaluate((input: HTMLInputElement) => [input.selectionStart, input.selectionEnd])).toEqual([2, 7])

  await toggle.focus()
  await page.keyboard.press('Enter')
  await expect(field).toHaveAttribute('type', 'password')
  await expect(toggle).toHaveAttribute('aria-pressed', 'false')
  await expect(field).toHaveValue('Typed-secret-123')
  expect(await field.evaluate((input: HTMLInputElement) => [input.selectionStart, input.selectionEnd])).toEqual([2, 7])

  await page.keyboard.press('Space')
  await expect(field).toHaveAttribute('type', 'text')
  await page.keyboard.press('Space')
  await expect(field).toHaveAttribute('type', 'password')

  expect(page.url()).toBe(url)
  expect(requests, 'nothing submitted').toEqual([])
}

test.describe('the show-password toggle', () => {
  test('on sign-in (fr)', async ({ page, javaScriptEnabled }) => {
    await page.goto('/')
    if (!javaScriptEnabled) {
      await expect(page.getByLabel('Mot de passe')).toHaveAttribute('type', 'password')
      await expect(page.getByRole('button', { name: 'Afficher le mot de passe' })).toHaveCount(0)
      return
    }
    await checkToggle(page, 'Mot de passe', 'Afficher le mot de passe')
  })

  test.describe('in English', () => {
    test.use({ locale: 'en-US' })
    test('on sign-in (en)', async ({ page, javaScriptEnabled }) => {
      await page.goto('/')
      if (!javaScriptEnabled) {
        await expect(page.getByRole('button', { name: 'Show password' })).toHaveCount(0)
        return
      }
      await checkToggle(page, 'Password', 'Show password')
    })
  })

  test('on the new password and its confirmation', async ({ page, admin, javaScriptEnabled }) => {
    await newPasswordPage(page, admin)
    if (!javaScriptEnabled) {
      await expect(page.getByRole('button', { name: 'Afficher le mot de passe' })).toHaveCount(0)
      return
    }
    await expect(page.getByRole('button', { name: 'Afficher le mot de passe', exact: true })).toHaveCount(2)
    await checkToggle(page, 'Nouveau mot de passe', 'Afficher le mot de passe', 0)
    await checkToggle(page, 'Confirmer le nouveau mot de passe', 'Afficher le mot de passe', 1)
  })

  test('a shown password is hidden again when the form is sent, and emptied @js-only', async ({ page }) => {
    await page.goto('/')
    await page.getByLabel('Adresse électronique').fill('someone@example.com')
    await page.getByLabel('Mot de passe').fill('Wrong-password-1')
    await page.getByRole('button', { name: 'Afficher le mot de passe' }).click()
    await page.getByRole('button', { name: 'Se connecter' }).click()
    await expect(page.getByRole('alert')).toHaveText('Adresse électronique ou mot de passe incorrect')
    await expect(page.getByLabel('Mot de passe')).toHaveAttribute('type', 'password')
    await expect(page.getByLabel('Mot de passe')).toHaveValue('')
    await expect(page.getByRole('button', { name: 'Afficher le mot de passe' })).toHaveAttribute('aria-pressed', 'false')
  })
})

test('the password rules, before anything is judged, are a bulleted list, not empty circles that read as radio buttons', async ({
  page,
  admin,
}) => {
  await newPasswordPage(page, admin)
  const items = page.getByRole('main').getByRole('listitem')
  // Length, the four kinds of character (a list of their own), "three of four" and "nothing easy to guess".
  await expect(items).toHaveCount(7)
  const marks = await items.evaluateAll((lis) =>
    lis.map((li) => {
      const mark = getComputedStyle(li, '::before')
      return { width: parseFloat(mark.width), border: parseFloat(mark.borderTopWidth), fill: mark.backgroundColor }
    }),
  )
  for (const mark of marks) {
    expect(mark.width, 'a bullet, not a 16 px circle').toBeLessThanOrEqual(8)
    expect(mark.border, 'filled, not a ring').toBe(0)
    expect(mark.fill).not.toBe('rgba(0, 0, 0, 0)')
  }
})

/** Each placeholder's text width (canvas measureText, the input's computed font) against the room inside it. */
async function placeholderFit(page: Page) {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLInputElement>('main input[placeholder]')].map((input) => {
      const style = getComputedStyle(input)
      const context = document.createElement('canvas').getContext('2d')!
      context.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`
      const text = context.measureText(input.placeholder).width
      const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)
      return { placeholder: input.placeholder, text: Math.ceil(text), room: Math.floor(room) }
    }),
  )
}

for (const [locale, password] of [
  ['fr-FR', 'Mot de passe'],
  ['en-US', 'Password'],
] as const) {
  test.describe(`at 320 px (${locale})`, () => {
    test.use({ locale, viewport: { width: 320, height: 640 } })
    test('the placeholders fit their fields', async ({ page, javaScriptEnabled }) => {
      await page.goto('/')
      // With JavaScript, the toggle takes its room inside the field once the page is hydrated.
      if (javaScriptEnabled) await expect(page.getByRole('button', { name: /password|mot de passe/i })).toBeVisible()
      const fits = await placeholderFit(page)
      expect(fits.length).toBe(2)
      await expect(page.getByLabel(password, { exact: true })).toHaveAttribute('placeholder', /.+/)
      for (const fit of fits) expect(fit.text, `"${fit.placeholder}" in ${fit.room} px`).toBeLessThanOrEqual(fit.room)
    })
  })
}

test.describe('the footer at 320 px', () => {
  test.use({ viewport: { width: 320, height: 640 } })
  test('the privacy notice is a small note under the card, the language switch a compact control', async ({ page }) => {
    await page.goto('/')
    const notice = page.getByRole('region', { name: 'Politique de confidentialité' })
    const box = (await notice.boundingBox())!
    const card = (await page.getByRole('main').boundingBox())!
    expect(box.y, 'under the card').toBeGreaterThan(card.y + card.height)
    expect(box.height, `${box.height} px against the card's ${card.height} px`).toBeLessThan(card.height * 0.25)
    const button = (await notice.getByRole('button', { name: 'J’ai compris' }).boundingBox())!
    expect(button.x).toBeGreaterThanOrEqual(box.x)
    expect(button.x + button.width).toBeLessThanOrEqual(box.x + box.width)
    expect(button.y + button.height).toBeLessThanOrEqual(box.y + box.height)
    expect(button.height, 'a target of at least 24 px').toBeGreaterThanOrEqual(24)

    const english = (await page.getByRole('button', { name: 'English', exact: true }).boundingBox())!
    const french = (await page.getByRole('button', { name: 'Français', exact: true }).boundingBox())!
    expect(english.y, 'one row').toBe(french.y)
    const gap = french.x - (english.x + english.width)
    expect(gap, 'side by side, as one control').toBeLessThanOrEqual(4)
    expect(english.height, 'a target of at least 24 px').toBeGreaterThanOrEqual(24)
  })
})

test.describe('at 320 px, nothing breaks into a ragged column', () => {
  test.use({ viewport: { width: 320, height: 640 }, locale: 'en-US' })

  test('the notice: “Privacy policy” on one line, “I understand” on a line of its own under the text', async ({ page }) => {
    await page.goto('/')
    const notice = page.getByRole('region', { name: 'Privacy policy' })
    const link = notice.getByRole('link', { name: 'Privacy policy' })
    expect(await link.evaluate((a) => a.getClientRects().length), 'the link on one line').toBe(1)
    const text = (await notice.getByRole('paragraph').boundingBox())!
    const button = (await notice.getByRole('button', { name: 'I understand' }).boundingBox())!
    expect(button.y, 'the button under the text').toBeGreaterThanOrEqual(text.y + text.height)
    const box = (await notice.boundingBox())!
    expect(Math.abs(button.x + button.width / 2 - (box.x + box.width / 2)), 'centred').toBeLessThanOrEqual(1)
  })

  test('a long address has the row’s width, under the initial, not a narrow column beside it', async ({ page, admin }) => {
    const email = `firstname.lastname.department-${uniqueEmail('long')}`
    await admin.createUser(email, PASSWORD)
    await signIn(page, email, PASSWORD)
    const row = page.getByText('Signed in as').locator('xpath=ancestor::div[1]')
    const address = (await row.getByText(email).boundingBox())!
    const avatar = (await row.locator('[aria-hidden="true"]').first().boundingBox())!
    expect(address.y, 'under the initial').toBeGreaterThanOrEqual(avatar.y + avatar.height)
    expect(address.x, 'from the row’s left edge, where the initial is').toBeLessThanOrEqual(avatar.x + 1)
    const lineHeight = await row.getByText(email).evaluate((el) => parseFloat(getComputedStyle(el).lineHeight))
    // About 62 characters: four lines of the row's width (beside the initial they were seven).
    expect(address.height / lineHeight, 'a few lines, not a column').toBeLessThanOrEqual(4.1)
  })
})

test.describe('the alerts', () => {
  test.use({ locale: 'en-US' })
  test('carry an icon beside their words, drawn by the stylesheet and read by no one', async ({ page }) => {
    await page.goto('/?mfaError=expired')
    const alert = page.getByRole('alert')
    await expect(alert).toHaveText('Your verification has expired. Please sign in again.')
    const icon = await alert.evaluate((el) => {
      const style = getComputedStyle(el, '::before')
      return { content: style.content, mask: style.maskImage || style.webkitMaskImage, width: parseFloat(style.width) }
    })
    expect(icon.mask).toContain('data:image/svg+xml')
    expect(icon.width).toBeGreaterThanOrEqual(16)
    expect(['""', 'none']).toContain(icon.content)
  })
})

test.describe('the page on a large screen', () => {
  test('sits at its optical centre, about 40 % of the free height above it; on a phone, at the top', async ({ page }) => {
    for (const [width, height] of [[1280, 1000], [320, 800]] as const) {
      await page.setViewportSize({ width, height })
      await page.goto('/forgot-password')
      const { above, below } = await page.evaluate(() => {
        const top = document.querySelector('header')!.getBoundingClientRect().top
        const bottom = document.querySelector('footer')!.getBoundingClientRect().bottom
        return { above: top, below: window.innerHeight - bottom }
      })
      if (width === 320) expect(above, 'at the top on a phone').toBeLessThanOrEqual(32)
      else expect(above / (above + below), `${above} px above, ${below} px below`).toBeCloseTo(0.4, 1)
    }
  })
})

test.describe('the card', () => {
  for (const width of [320, 1280]) {
    test(`has as much room above its content as below at ${width} px`, async ({ page }) => {
      await page.setViewportSize({ width, height: 800 })
      for (const path of ['/', '/forgot-password', '/nope']) {
        await page.goto(path)
        const { top, bottom } = await page.getByRole('main').evaluate((main) => {
          const card = main.getBoundingClientRect()
          const style = getComputedStyle(main)
          const inner = { top: card.top + parseFloat(style.borderTopWidth), bottom: card.bottom - parseFloat(style.borderBottomWidth) }
          // The content's extent: the boxes of the card's children, with their margins.
          const boxes = [...main.children].map((child) => {
            const box = child.getBoundingClientRect()
            const margins = getComputedStyle(child)
            return { top: box.top - parseFloat(margins.marginTop), bottom: box.bottom + parseFloat(margins.marginBottom) }
          })
          return {
            top: Math.min(...boxes.map((b) => b.top)) - inner.top,
            bottom: inner.bottom - Math.max(...boxes.map((b) => b.bottom)),
          }
        })
        expect(Math.abs(top - bottom), `${path}: ${top} px above, ${bottom} px below`).toBeLessThanOrEqual(1)
      }
    })
  }

  test.describe('in the dark scheme', () => {
    test.use({ colorScheme: 'dark' })
    test('shows its edge against the page', async ({ page }) => {
      await page.goto('/')
      const { edge, width, around } = await page.getByRole('main').evaluate((main) => ({
        edge: getComputedStyle(main).borderTopColor,
        width: parseFloat(getComputedStyle(main).borderTopWidth),
        around: getComputedStyle(document.body).backgroundColor,
      }))
      expect(width).toBeGreaterThanOrEqual(1)
      expect(contrastOf(edge, around), `${edge} on ${around}`).toBeGreaterThanOrEqual(2)
    })
  })
})

for (const scheme of ['light', 'dark'] as const) {
  test.describe(`hover (${scheme})`, () => {
    test.use({ colorScheme: scheme })
    test('the main button, the outlined button and the links answer the pointer', async ({ page }) => {
      await page.goto('/')
      const looks = (name: string, property: string) =>
        page.getByRole(name === 'link' ? 'link' : 'button', { name: name === 'link' ? 'Mot de passe oublié\u202f?' : name }).evaluate(
          (el, prop) => getComputedStyle(el).getPropertyValue(prop),
          property,
        )
      const cases = [
        ['Se connecter', 'background-color'],
        ['J’ai compris', 'box-shadow'],
        ['link', 'text-decoration-thickness'],
      ] as const
      for (const [name, property] of cases) {
        await page.mouse.move(0, 0)
        const rest = await looks(name, property)
        await (name === 'link' ? page.getByRole('link', { name: 'Mot de passe oublié\u202f?' }) : page.getByRole('button', { name })).hover()
        await expect.poll(() => looks(name, property), `${name}: ${property}`).not.toBe(rest)
      }
    })
  })
}

for (const scheme of ['light', 'dark'] as const) {
  test.describe(`a pending submit button (${scheme})`, () => {
    test.use({ colorScheme: scheme })
    // axe runs as a script in the page: with JavaScript only (a11y.spec.ts checks the pages without it).
    test('keeps its text contrast @js-only', async ({ page }) => {
      await page.goto('/')
      await page.locator('.button-primary').evaluate((button) => button.setAttribute('data-pending', ''))
      const { violations } = await axe(page).include('.button-primary').withRules(['color-contrast']).analyze()
      expect(violations.map((v) => v.id)).toEqual([])
    })
  })
}
