import { STATUS_CODES } from 'node:http'
import { describe, expect, it } from 'vitest'
import { errorCopy, offersRetry, STATUSES_WITH_A_PAGE } from './error-status'
import { translate } from './translator'

describe('errorCopy', () => {
  it('gives each status the portal answers its own heading and line, in both languages', () => {
    const headings = new Set<string>()
    for (const status of STATUSES_WITH_A_PAGE) {
      const { title, text } = errorCopy(status)
      for (const locale of ['en', 'fr'] as const) {
        const heading = translate(locale, title.key, title.values)
        expect(heading, `${status} ${locale}`).not.toBe(title.key)
        expect(heading).not.toBe(translate(locale, 'message.unknownError'))
        expect(translate(locale, text!), `${status} ${locale}`).not.toBe(text)
        headings.add(heading)
      }
    }
    expect(headings.size).toBe(STATUSES_WITH_A_PAGE.length * 2)
  })

  it('heads each page in the visitor\'s words, one sentence, never the HTTP reason phrase', () => {
    for (const status of STATUSES_WITH_A_PAGE) {
      const reason = STATUS_CODES[status]!.toLowerCase()
      for (const locale of ['en', 'fr'] as const) {
        const heading = translate(locale, errorCopy(status).title.key)
        expect(heading.toLowerCase(), `${status} ${locale}`).not.toBe(reason)
        expect(heading, `${status} ${locale}: one sentence`).not.toMatch(/[.!?]\s/u)
      }
    }
    expect(translate('en', errorCopy(500).title.key)).toBe('Something went wrong on our side')
    expect(translate('fr', errorCopy(500).title.key)).toBe('Un problème est survenu de notre côté')
    expect(translate('en', errorCopy(405).title.key)).toBe('This page cannot be used that way')
  })

  it('offers "Try again" where the same address may work in a moment, not where it cannot', () => {
    expect([500, 503].every(offersRetry)).toBe(true)
    expect([400, 403, 404, 405, 413, 414, 429, null].some(offersRetry)).toBe(false)
  })

  it('names a status it has no page for, and says message.unknownError only without a status', () => {
    const other = errorCopy(418)
    expect(translate('en', other.title.key, other.title.values)).toBe('Error 418')
    expect(translate('fr', other.title.key, other.title.values)).toBe('Erreur 418')
    expect(errorCopy(null)).toEqual({ title: { key: 'message.unknownError' }, text: null })
  })
})
