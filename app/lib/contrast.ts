export type Rgb = readonly [number, number, number]

export function parseHex(text: string): Rgb | null {
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(text.trim())?.[1]
  if (!hex) return null
  const pairs = hex.length === 3 ? [...hex].map((digit) => digit + digit) : hex.match(/../g)!
  return pairs.map((pair) => parseInt(pair, 16)) as unknown as Rgb
}

export function toHex(rgb: Rgb): string {
  return `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`
}

/** An sRGB channel (0–255) as light, 0–1, and back. */
const linear = (c: number) => {
  const s = c / 255
  return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
}
const encoded = (l: number) => 255 * (l <= 0.0031308 ? 12.92 * l : 1.055 * l ** (1 / 2.4) - 0.055)

export function luminance(rgb: Rgb): number {
  const [r, g, b] = rgb.map(linear) as [number, number, number]
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
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

/** sRGB to OKLCH (Björn Ottosson's OKLab, in polar form): lightness 0–1, chroma, hue in radians. */
function toOklch(rgb: Rgb): [number, number, number] {
  const [r, g, b] = rgb.map(linear) as [number, number, number]
  const l = Math.cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b)
  const m = Math.cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b)
  const s = Math.cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b)
  const L = 0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s
  const A = 1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s
  const B = 0.0259040371 * l + 0.7827717662 * m - 0.808675766 * s
  return [L, Math.hypot(A, B), Math.atan2(B, A)]
}

/** OKLCH to sRGB, or null outside what a screen shows. */
function fromOklch(L: number, C: number, h: number): Rgb | null {
  const [A, B] = [C * Math.cos(h), C * Math.sin(h)]
  const l = (L + 0.3963377774 * A + 0.2158037573 * B) ** 3
  const m = (L - 0.1055613458 * A - 0.0638541728 * B) ** 3
  const s = (L - 0.0894841775 * A - 1.291485548 * B) ** 3
  const rgb = [
    4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s,
    -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s,
    -0.0041960863 * l - 0.7034186147 * m + 1.707614701 * s,
  ]
  if (rgb.some((c) => c < -1e-4 || c > 1 + 1e-4)) return null
  return rgb.map((c) => Math.round(encoded(Math.min(1, Math.max(0, c))))) as unknown as Rgb
}

/** The colour at lightness L and hue h with the most chroma up to C that a screen shows. */
function mostColourful(L: number, C: number, h: number): Rgb {
  let [low, high] = [0, C]
  let best = fromOklch(L, 0, h)!
  for (let i = 0; i < 20; i++) {
    const mid = (low + high) / 2
    const rgb = fromOklch(L, mid, h)
    if (rgb) [best, low] = [rgb, mid]
    else high = mid
  }
  return fromOklch(L, C, h) ?? best
}

/**
 * Lighter in OKLCH, hue and chroma kept as far as the screen shows them: mixing with white reached
 * the same contrast with a washed-out pastel (ADR 076). White reads at 16:1 on the darkest card, so
 * there is always such a step.
 */
export function darkAccent(accent: Rgb, target = 7): Rgb {
  const [L, C, h] = toOklch(accent)
  for (let step = Math.ceil(L * 100); step <= 100; step++) {
    const candidate = mostColourful(step / 100, C, h)
    if (weakest(candidate, 'dark').ratio >= target) return candidate
  }
  return [255, 255, 255]
}

/** Rounded down, so that a refused ratio never shows as enough. */
export function ratioText(ratio: number): string {
  return `${(Math.floor(ratio * 10) / 10).toFixed(1)}:1`
}
