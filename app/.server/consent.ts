import { COOKIES, getCookie } from './cookies'

export function hasConsented(request: Request): boolean {
  return getCookie(request, COOKIES.consent) === '1'
}
