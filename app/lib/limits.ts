import type { TranslationKey } from './i18n'

/**
 * Input bounds shared by the forms (maxLength) and the server schemas. Kept apart from the zod
 * schemas so that the browser bundle does not carry zod.
 */
export const EMAIL_MAX_LENGTH = 254
export const PASSWORD_INPUT_MAX_LENGTH = 4096

/** Field messages (translation keys), first message per field. */
export type FieldErrors = Partial<Record<string, TranslationKey>>
