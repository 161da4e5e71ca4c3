import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { SCHEMES, contrast, darkAccent, luminance, parseHex, ratioText, weakest } from './contrast'

describe('contrast', () => {
  it('computes WCAG relative luminance and ratios', () => {
    expect(luminance([255, 255, 255])).toBe(1)
    expect(luminance([0, 0, 0])).toBe(0)
    expect(contrast([0, 0, 0], [255, 255, 255])).toBeCloseTo(21, 5)
    // Known pairs: #777 on white is 4.48:1, #1d4ed8 (the portal's accent) on white 6.7:1.
    expect(contrast(parseHex('#777')!, parseHex('#fff')!)).toBeCloseTo(4.48, 2)
    expect(contrast(parseHex('#1d4ed8')!, parseHex('#ffffff')!)).toBeCloseTo(6.7, 1)
  })

  it('reads #rgb and #rrggbb in either case, and nothing else', () => {
    expect(parseHex('#7A1FA2')).toEqual([0x7a, 0x1f, 0xa2])
    expect(parseHex('#abc')).toEqual([0xaa, 0xbb, 0xcc])
    for (const wrong of ['7a1fa2', '#7a1fa2ff', '#abcd', 'purple', 'rgb(1 2 3)', '#ggg'])
      expect(parseHex(wrong), wrong).toBeNull()
  })

  it('rounds a ratio down, so that a refused one never reads as enough', () => {
    expect(ratioText(4.4999)).toBe('4.4:1')
    expect(ratioText(1.07)).toBe('1.0:1')
  })

  it('names the weakest surface of the light scheme', () => {
    expect(weakest(parseHex('#ffff00')!, 'light')).toEqual({
      against: 'the page background #f4f6fb',
      ratio: expect.closeTo(1, 0),
    })
    expect(weakest(parseHex('#1a73e8')!, 'light').against).toBe('the page background #f4f6fb')
    expect(weakest(parseHex('#7a1fa2')!, 'light').ratio).toBeGreaterThan(4.5)
  })

  it('derives a dark-scheme accent that reads on every dark surface and under its button text', () => {
    for (const hex of ['#7a1fa2', '#1d4ed8', '#000000', '#b42318', '#067647']) {
      const dark = darkAccent(parseHex(hex)!)
      expect(weakest(dark, 'dark').ratio, hex).toBeGreaterThanOrEqual(7)
    }
  })

  it('keeps the brand’s colour in the dark scheme: lighter, not washed out to a pastel', () => {
    // The spread between a colour's strongest and weakest channel: 0 for a grey.
    const spread = (rgb: readonly number[]) => Math.max(...rgb) - Math.min(...rgb)
    for (const hex of ['#7a1fa2', '#1d4ed8', '#b42318', '#067647', '#0f766e']) {
      const brand = parseHex(hex)!
      expect(spread(darkAccent(brand)), hex).toBeGreaterThanOrEqual(0.6 * spread(brand))
    }
    expect(darkAccent(parseHex('#000000')!).every((c, _, [r]) => c === r), 'a grey stays grey').toBe(true)
  })

  it('knows the surfaces app/styles.css declares', () => {
    const css = readFileSync(new URL('../styles.css', import.meta.url), 'utf8')
    const [light = '', dark = ''] = css.split('@media (prefers-color-scheme: dark)')
    const value = (block: string, name: string) => new RegExp(`--${name}:\\s*(#[0-9a-f]+)`, 'i').exec(block)?.[1]
    for (const [scheme, block] of [
      ['light', light],
      ['dark', dark],
    ] as const) {
      const surfaces = Object.values(SCHEMES[scheme].surfaces)
      expect(surfaces, scheme).toEqual([value(block, 'card'), value(block, 'bg')])
      expect(SCHEMES[scheme].accentText, scheme).toBe(value(block, 'accent-text'))
    }
  })

  it('gives the danger buttons 4.5:1 in both schemes: the error colour on the card, the button text on it', () => {
    const css = readFileSync(new URL('../styles.css', import.meta.url), 'utf8')
    const [light = '', dark = ''] = css.split('@media (prefers-color-scheme: dark)')
    const value = (block: string, name: string) =>
      parseHex(new RegExp(`--${name}:\\s*(#[0-9a-f]+)`, 'i').exec(block)![1]!)!
    for (const block of [light, dark]) {
      const error = value(block, 'error')
      expect(contrast(error, value(block, 'card'))).toBeGreaterThanOrEqual(4.5)
      expect(contrast(error, value(block, 'accent-text'))).toBeGreaterThanOrEqual(4.5)
      // The warning callout: the text on the error's background.
      expect(contrast(value(block, 'text'), value(block, 'error-bg'))).toBeGreaterThanOrEqual(4.5)
    }
  })
})
