/**
 * The hidden field every protected form carries (app/components/secure-form.tsx), read back by
 * the form guard (app/.server/policy/csrf.ts): one name for both sides.
 */

/** The hidden field that carries the CSRF token. */
export const CSRF_FIELD = 'csrf'
