import { useTranslation } from 'react-i18next'

/**
 * The brand: the mark and the name, two images (seed section 2). The name is drawn as outlines
 * (DejaVu Sans Bold, 20 px), its viewBox fitted to the letters, so the pair is centred over the card
 * on every system; both images follow the colour scheme from inside the SVG.
 */
export function Logo() {
  const { t } = useTranslation()
  return (
    <a href="/" className="logo">
      <img src="/logo-mark.svg" alt="" width="40" height="40" />
      <img src="/logo-name.svg" alt={t('brand.logoAlt')} width="127" height="17" />
    </a>
  )
}
