import type { TranslationKey } from './i18n'

/** Apart from the zod schemas, so that the browser bundle does not carry zod. */
export const EMAIL_MAX_LENGTH = 254
/** Bounds hashing cost and request size; the new-password rule counts it in code points. */
export const PASSWORD_MAX_LENGTH = 4096

export type FieldErrors = Partial<Record<string, TranslationKey>>

export const FACTOR_NAME_MAX_LENGTH = 60

/** Rounded up to the whole minute, so that "at 18:05" is never before the limit lets go. */
export const retryAtAfter = (seconds: number, now = Date.now()) => Math.ceil((now + seconds * 1000) / 60_000) * 60_000

export const limitMessage = (seconds: number) => ({ retryAt: retryAtAfter(seconds) }) as const
