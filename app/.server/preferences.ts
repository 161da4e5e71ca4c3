import { redirect } from 'react-router'
import type { Locale } from '~/lib/i18n'
import { COOKIES, getCookie, setCookie } from './cookies'
import { localPathOr } from './policy/redirect'
import { page, redirectTo, type Result } from './result'

/**
 * The visitor's preferences (the language switch, the privacy notice): each a cookie that lives a
 * year and outlasts logout (./cookies.ts). Their routes take posts only.
 */

export function hasConsented(request: Request): boolean {
  return getCookie(request, COOKIES.consent) === '1'
}

/** The language chosen with the switch: its cookie, then back to the page (or data for a fetcher). */
export function saveLocale(form: SavedPreference & { locale: Locale }) {
  return preferenceSaved(form, setCookie(COOKIES.locale, form.locale), { locale: form.locale })
}

/** The privacy notice accepted: its cookie, then back to the page (or data for a fetcher). */
export function saveConsent(form: SavedPreference) {
  return preferenceSaved(form, setCookie(COOKIES.consent, '1'), { accepted: true })
}

/** Where a preference's post came from: `returnTo`, a path of ours, or `inPlace` for a fetcher. */
interface SavedPreference {
  returnTo?: string
  inPlace: boolean
}

/** The answer to a saved preference: its cookie, then back to the page, or `inPlace` data for a fetcher. */
function preferenceSaved<T>(form: SavedPreference, cookie: string, inPlace: T): Result<T> {
  if (form.inPlace) return page(inPlace, { cookies: [cookie] })
  return redirectTo(localPathOr(form.returnTo), { cookies: [cookie] })
}

/** A visit (GET) to a preference's route goes to the sign-in page. */
export const visitGoesToSignIn = () => redirect('/')
