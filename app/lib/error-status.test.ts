import { describe, expect, it } from 'vitest'
import { errorCopy, STATUSES_WITH_A_PAGE } from './error-status'
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

  it('heads a 500 "Internal server error" and a 405 "Method not allowed"', () => {
    expect(translate('en', errorCopy(500).title.key)).toBe('Internal server error')
    expect(translate('fr', errorCopy(500).title.key)).toBe('Erreur interne du serveur')
    expect(translate('en', errorCopy(405).title.key)).toBe('Method not allowed')
  })

  it('names a status it has no page for, and says message.unknownError only without a status', () => {
    const other = errorCopy(418)
    expect(translate('en', other.title.key, other.title.values)).toBe('Error 418')
    expect(translate('fr', other.title.key, other.title.values)).toBe('Erreur 418')
    expect(errorCopy(null)).toEqual({ title: { key: 'message.unknownError' }, text: null })
  })
})
