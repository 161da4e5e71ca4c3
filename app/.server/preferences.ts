import { redirect } from 'react-router'
import type { Locale } from '~/lib/i18n'
import { COOKIES, getCookie, setCookie } from './cookies'
import { localPathOr } from './policy/redirect'
import { page, redirectTo, type Result } from './result'

export function hasConsented(request: Request): boolean {
  return getCookie(request, COOKIES.consent) === '1'
}

export function saveLocale(form: SavedPreference & { locale: Locale }) {
  return preferenceSaved(form, setCookie(COOKIES.locale, form.locale), { locale: form.locale })
}

export function saveConsent(form: SavedPreference) {
  return preferenceSaved(form, setCookie(COOKIES.consent, '1'), { accepted: true })
}

interface SavedPreference {
  returnTo?: string
  inPlace: boolean
}

function preferenceSaved<T>(form: SavedPreference, cookie: string, inPlace: T): Result<T> {
  if (form.inPlace) return page(inPlace, { cookies: [cookie] })
  return redirectTo(localPathOr(form.returnTo), { cookies: [cookie] })
}

export const visitGoesToSignIn = () => redirect('/')
