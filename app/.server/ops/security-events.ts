import { createHmac } from 'node:crypto'
import { identifierKey } from '~/.server/keys'
import { logger } from './logger'

export type SecurityEvent =
  | 'sign-in-success'
  | 'sign-in-failure'
  | 'recent-login'
  | 'recent-login-failure'
  | 'second-factor-required'
  | 'second-factor-failure'
  | 'reset-requested'
  | 'sign-up-requested'
  | 'account-created'
  | 'reset-done'
  | 'csrf-refused'
  | 'logout'
  | 'logout-everywhere'
  | 'session-ended'
  | 'password-changed'
  | 'verification-sent'
  | 'email-change-requested'
  | 'account-deleted'
  | 'second-factor-added'
  | 'second-factor-removed'
  | 'passkey-added'
  | 'passkey-removed'
  | 'passkey-refused'

/** A keyed hash, so the address cannot be read back or guessed from a dictionary without the key. */
export function hashEmail(email: string): string {
  return createHmac('sha256', identifierKey()).update(email.trim().toLowerCase()).digest('base64url').slice(0, 22)
}

export function securityEvent(
  event: SecurityEvent,
  fields: { reqId: string; email?: string; ip?: string; [key: string]: unknown },
): void {
  const { email, ...rest } = fields
  logger.info({ security: true, event, ...rest, ...(email ? { emailHash: hashEmail(email) } : {}) }, event)
}
