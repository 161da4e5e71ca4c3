import { createHmac } from 'node:crypto'
import { getConfig } from '~/.server/config'
import { logger } from './logger'

export type SecurityEvent =
  | 'sign-in-success'
  | 'sign-in-failure'
  | 'recent-login'
  | 'recent-login-failure'
  | 'second-factor-required'
  | 'second-factor-failure'
  | 'reset-requested'
  | 'reset-done'
  | 'csrf-refused'
  | 'logout'

/**
 * A keyed hash of an address: events about one account can be correlated, but the address
 * cannot be read back or guessed from a dictionary without the secret.
 */
export function hashEmail(email: string): string {
  const secret = getConfig().sessionSecrets[0] ?? ''
  return createHmac('sha256', secret).update(email.trim().toLowerCase()).digest('base64url').slice(0, 22)
}

/** One structured line per security event, UTC timestamp and request id included. */
export function securityEvent(
  event: SecurityEvent,
  fields: { reqId: string; email?: string; ip?: string; [key: string]: unknown },
): void {
  const { email, ...rest } = fields
  logger.info({ security: true, event, ...rest, ...(email ? { emailHash: hashEmail(email) } : {}) }, event)
}
