import { brandName, getBrand } from '~/lib/brand'
import type { Locale } from '~/lib/i18n'

/**
 * The brand over the card, a link to sign-in. The operator's logo (BRAND_LOGO, and BRAND_LOGO_DARK
 * for the dark scheme) is an image whose alt text is the brand's name; without a dark one, the
 * dark scheme shows the light one on a light plate, where its colours were chosen to be seen.
 * The portal's own is a mark without words beside the name as text, so that it reads in the page's
 * language, follows BRAND_NAME and is drawn in the accent of either scheme (ADR 040).
 */
export function Logo({ locale }: { locale: Locale }) {
  const { logo } = getBrand()
  const name = brandName(locale)
  if (logo) {
    return (
      <a href="/" className={logo.dark ? 'logo' : 'logo logo-light-only'}>
        <picture>
          {logo.dark ? <source srcSet={logo.dark} media="(prefers-color-scheme: dark)" /> : null}
          <img src={logo.src} alt={name} width={logo.width} height={logo.height} />
        </picture>
      </a>
    )
  }
  return (
    <a href="/" className="logo">
      <svg className="logo-mark" viewBox="0 0 40 40" width="40" height="40" aria-hidden="true" focusable="false">
        <rect width="40" height="40" rx="10" />
        <path d="M20 9a7 7 0 0 0-7 7v3h-1a2 2 0 0 0-2 2v9a2 2 0 0 0 2 2h16a2 2 0 0 0 2-2v-9a2 2 0 0 0-2-2h-1v-3a7 7 0 0 0-7-7zm-4 10v-3a4 4 0 0 1 8 0v3zm4 4a2 2 0 0 1 1 3.7V29h-2v-2.3a2 2 0 0 1 1-3.7z" />
      </svg>
      <span className="logo-name">{name}</span>
    </a>
  )
}
