import { useTranslation } from 'react-i18next'

/** The brand: the mark and the name, two images (seed section 2). */
export function Logo() {
  const { t } = useTranslation()
  return (
    <a href="/" className="logo">
      <img src="/logo-mark.svg" alt="" width="40" height="40" />
      <img src="/logo-name.svg" alt={t('brand.logoAlt')} width="180" height="24" />
    </a>
  )
}
