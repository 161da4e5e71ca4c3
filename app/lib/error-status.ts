import type { TranslationKey } from './i18n'

/**
 * What the error page says for a status: each status the portal answers with the
 * error page has its own heading, saying what happened in the visitor's words (not the HTTP reason
 * phrase), and a line saying what to do; another status gets a generic heading naming it. Only an
 * error without a status is headed message.unknownError. 404 keeps 'Page not found' + the path.
 */
export const STATUSES_WITH_A_PAGE = [400, 403, 404, 405, 413, 414, 429, 500, 503] as const
type PageStatus = (typeof STATUSES_WITH_A_PAGE)[number]
/** The statuses whose heading and line are errorPage.<status>.title and .text. */
type OwnCopy = Exclude<PageStatus, 404>

export interface ErrorCopy {
  /** The heading's key, with its values. */
  title: { key: TranslationKey; values?: Record<string, unknown> }
  /** The line under it, or null. */
  text: TranslationKey | null
}

function hasOwnCopy(status: number): status is OwnCopy {
  return status !== 404 && (STATUSES_WITH_A_PAGE as readonly number[]).includes(status)
}

export function errorCopy(status: number | null): ErrorCopy {
  if (status === null) return { title: { key: 'message.unknownError' }, text: null }
  if (status === 404) return { title: { key: 'error.pageNotFound' }, text: 'errorPage.404.text' }
  if (hasOwnCopy(status)) return { title: { key: `errorPage.${status}.title` }, text: `errorPage.${status}.text` }
  return { title: { key: 'errorPage.other.title', values: { status } }, text: 'errorPage.other.text' }
}

/**
 * Where the HTTP server sends a request it refused itself (a bad Host header, a method Fetch cannot
 * carry, an over-long address, a failure outside React Router), with the status in the load context
 * (`errorStatus`): the not-found route renders that status's error page. The page is rendered
 * without scripts, as the browser's address is not this path and there is nothing to hydrate.
 */
export const ERROR_ROUTE = '/__error'

/**
 * The statuses whose page offers 'Try again' at the same address: the service was briefly down or
 * failed, and what the visitor came with (an emailed link's code, kept in its cookie) still works.
 */
export function offersRetry(status: number | null): boolean {
  return status === 500 || status === 503
}
