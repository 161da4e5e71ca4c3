export type Rgb = readonly [number, number, number]

const HEX = /^#(?:([0-9a-f])([0-9a-f])([0-9a-f])|([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2}))$/i

export function parseHex(text: string): Rgb | null {
  const m = HEX.exec(text.trim())
  if (!m) return null
  const parts = m[1] ? [m[1] + m[1], m[2]! + m[2], m[3]! + m[3]] : [m[4]!, m[5]!, m[6]!]
  return parts.map((p) => parseInt(p, 16)) as unknown as Rgb
}

export function toHex(rgb: Rgb): string {
  return `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`
}

export function luminance([r, g, b]: Rgb): number {
  const linear = (c: number) => {
    const s = c / 255
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
}

export function contrast(a: Rgb, b: Rgb): number {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number]
  return (high + 0.05) / (low + 0.05)
}

export const MIN_TEXT_CONTRAST = 4.5

/** Must match app/styles.css (its test checks they agree). */
export const SCHEMES = {
  light: {
    surfaces: { white: '#ffffff', 'the page background #f4f6fb': '#f4f6fb' },
    accentText: '#ffffff',
  },
  dark: {
    surfaces: { 'the dark card #18202b': '#18202b', 'the dark page #0f141c': '#0f141c' },
    accentText: '#0b1220',
  },
} as const

type Scheme = keyof typeof SCHEMES

export function weakest(accent: Rgb, scheme: Scheme): { ratio: number; against: string } {
  const { surfaces, accentText } = SCHEMES[scheme]
  const pairs = [
    ...Object.entries(surfaces).map(([name, hex]) => ({ against: name, ratio: contrast(accent, parseHex(hex)!) })),
    { against: `its button text ${accentText}`, ratio: contrast(accent, parseHex(accentText)!) },
  ]
  return pairs.reduce((low, pair) => (pair.ratio < low.ratio ? pair : low))
}

/** White reads at 16:1 on the darkest card, so there is always such a step. */
export function darkAccent(accent: Rgb, target = 7): Rgb {
  for (let step = 0; step <= 50; step++) {
    const t = step / 50
    const mixed = accent.map((c) => c + (255 - c) * t) as unknown as Rgb
    if (weakest(mixed, 'dark').ratio >= target) return mixed.map(Math.round) as unknown as Rgb
  }
  return [255, 255, 255]
}

/** Rounded down, so that a refused ratio never shows as enough. */
export function ratioText(ratio: number): string {
  return `${(Math.floor(ratio * 10) / 10).toFixed(1)}:1`
}
