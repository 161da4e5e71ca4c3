import type { TranslationKey } from './i18n'

export const STATUSES_WITH_A_PAGE = [400, 403, 404, 405, 413, 414, 429, 500, 503] as const
type PageStatus = (typeof STATUSES_WITH_A_PAGE)[number]
type OwnCopy = Exclude<PageStatus, 404>

export interface ErrorCopy {
  title: { key: TranslationKey; values?: Record<string, unknown> }
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

/** Rendered without scripts: the browser's address is not this path, so there is nothing to hydrate. */
export const ERROR_ROUTE = '/__error'

export function offersRetry(status: number | null): boolean {
  return status === 500 || status === 503
}
