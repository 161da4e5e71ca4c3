import type { Locale } from './i18n'
import { translate } from './translator'

/**
 * The operator's brand as pages show it (docs/brand.md; ADR 040): names per language, the
 * logo's URLs and the accent's stylesheet. Process-wide and fixed at start-up, so it is module
 * state rather than loader data: the server sets it from its configuration (app/.server/brand.ts),
 * the browser from the page (entry.client.tsx), and every page, the error pages whose root loader
 * never ran included, renders the same on both sides.
 */
export interface Brand {
  /** Per language; a missing one is the portal's own name (brand.name). */
  name?: Partial<Record<Locale, string>>
  logo?: { src: string; dark?: string; width: number; height: number }
  /** The accent's stylesheet, linked after the portal's own. */
  stylesheet?: string
}

let current: Brand = {}

export function setBrand(brand: Brand) {
  current = brand
}

export function getBrand(): Brand {
  return current
}

export function brandName(locale: Locale): string {
  return current.name?.[locale] ?? translate(locale, 'brand.name')
}

/** How the page carries it for the browser: its container's data-brand; none when the brand is the portal's own. */
export function brandAttribute(): string | undefined {
  return Object.keys(current).length ? JSON.stringify(current) : undefined
}

/** The brand a page carried (its container's attribute); the portal's own when absent or unreadable. */
export function brandFromAttribute(value: string | null | undefined): Brand {
  if (!value) return {}
  try {
    return JSON.parse(value) as Brand
  } catch {
    return {}
  }
}
