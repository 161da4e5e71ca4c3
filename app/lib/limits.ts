import type { TranslationKey } from './i18n'

/**
 * Input bounds shared by the forms (maxLength) and the server schemas. Kept apart from the zod
 * schemas so that the browser bundle does not carry zod.
 */
export const EMAIL_MAX_LENGTH = 254
/**
 * Longest accepted password: bounds hashing cost and request size. The new-password rule counts
 * it in code points (app/lib/password-policy.ts); the sign-in form and the environment check use it too.
 */
export const PASSWORD_MAX_LENGTH = 4096

/** Field messages (translation keys), first message per field. */
export type FieldErrors = Partial<Record<string, TranslationKey>>

/** The longest name a second factor gets (the Name field's maxlength; the server cuts there too). */
export const FACTOR_NAME_MAX_LENGTH = 60

/**
 * When a refused attempt may be made again, in milliseconds since the epoch: `seconds` from now,
 * rounded up to the whole minute, so that "at 18:05" is never before the limit lets go.
 */
export const retryAtAfter = (seconds: number, now = Date.now()) => Math.ceil((now + seconds * 1000) / 60_000) * 60_000

/** What a page refused by a limit says: its message, with when it lets go. */
export const limitMessage = (seconds: number) => ({ retryAt: retryAtAfter(seconds) }) as const
