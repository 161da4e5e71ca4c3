import { describe, expect, inject, it } from 'vitest'

/**
 * React 18.3's streaming renderer can flush stray NUL bytes where a multi-byte character meets its
 * 2 KB buffer's end (facebook/react#24985). Which page is hit depends on where accented text falls,
 * so the sweep moves the boundary across the page with a growing query string, in both languages.
 */
const portal = inject('portal')

const PAGES = ['/?redirect=https%3A%2F%2Fevil.example%2F', '/?redirect=%2F', '/forgot-password?redirect=%2F', '/?email=']

describe('the bytes of every page', () => {
  for (const language of ['fr', 'en']) {
    it(`hold no NUL byte across 2 KB boundaries (${language})`, async () => {
      const found: string[] = []
      let pages = 0
      for (const page of PAGES) {
        for (let pad = 0; pad < 60; pad++) {
          const path = `${page}${'a'.repeat(pad)}`
          const res = await fetch(`${portal.url}${path}`, { headers: { 'Accept-Language': language } })
          const bytes = Buffer.from(await res.arrayBuffer())
          expect(bytes.length, path).toBeGreaterThan(2048)
          pages += 1
          const at = bytes.indexOf(0)
          if (at >= 0) found.push(`${path} at byte ${at}`)
        }
      }
      expect(pages).toBe(240)
      expect(found).toEqual([])
    })
  }
})
