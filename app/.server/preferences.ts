import { data, redirect } from 'react-router'
import { NO_STORE } from '~/lib/headers'
import type { Locale } from '~/lib/i18n'
import { COOKIES, getCookie, setCookie } from './cookies'
import { localPathOr } from './policy/redirect'

/**
 * The visitor's preferences (the language switch, the privacy notice): each a cookie that lives a
 * year and outlasts logout (./cookies.ts). Their routes take posts only.
 */

export function hasConsented(request: Request): boolean {
  return getCookie(request, COOKIES.consent) === '1'
}

/** The language chosen with the switch: its cookie, then back to the page (or data for a fetcher). */
export function saveLocale(form: FormData, locale: Locale) {
  return preferenceSaved(form, setCookie(COOKIES.locale, locale), { locale })
}

/** The privacy notice accepted: its cookie, then back to the page (or data for a fetcher). */
export function saveConsent(form: FormData) {
  return preferenceSaved(form, setCookie(COOKIES.consent, '1'), { accepted: true })
}

/** The answer to a saved preference: its cookie, then back to the page, or `inPlace` data for a fetcher. */
function preferenceSaved<T>(form: FormData, cookie: string, inPlace: T) {
  const headers = { ...NO_STORE, 'Set-Cookie': cookie }
  if (form.get('inPlace') === '1') return data(inPlace, { headers })
  return redirect(localPathOr(form.get('returnTo')), { status: 303, headers })
}

/** A visit (GET) to a preference's route goes to the sign-in page. */
export const visitGoesToSignIn = () => redirect('/')
