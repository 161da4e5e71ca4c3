import AxeBuilder from '@axe-core/playwright'
import type { Page } from '@playwright/test'

/** The rules every page is held to: WCAG 2.2, levels A and AA. */
export const WCAG_22_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']

/**
 * axe, run in `page` itself (ADR 056). By default @axe-core/playwright merges the frames' results in a
 * new blank page: a new renderer process for every check.
 */
export const axe = (page: Page) => new AxeBuilder({ page }).setLegacyMode(true)

/** The ids of the WCAG 2.2 AA rules the page breaks. axe needs JavaScript in the page: a11y.spec.ts checks the no-JS pages. */
export async function wcagViolations(page: Page): Promise<string[]> {
  return (await axe(page).withTags(WCAG_22_AA).analyze()).violations.map((v) => v.id)
}
