import type { Locale } from './i18n'
import { translate } from './translator'

// Module state rather than loader data: error pages whose root
// loader never ran must render the same brand on both sides.
export interface Brand {
  name?: Partial<Record<Locale, string>>
  logo?: { src: string; dark?: string; width: number; height: number }
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

export function brandAttribute(): string | undefined {
  return Object.keys(current).length ? JSON.stringify(current) : undefined
}

export function brandFromAttribute(value: string | null | undefined): Brand {
  if (!value) return {}
  try {
    return JSON.parse(value) as Brand
  } catch {
    return {}
  }
}
