import { createHmac } from 'node:crypto'
import pino from 'pino'
import { prettyFactory } from 'pino-pretty'
import { getConfig } from '~/.server/config'
import { identifierKey } from '~/.server/keys'
import { version } from '../../../package.json'

export const REDACTED_KEYS = [
  'password',
  'newPassword',
  'confirmPassword',
  'idToken',
  'refreshToken',
  'accessToken',
  'access_token',
  'refresh_token',
  'id_token',
  'sessionCookie',
  'oobCode',
  'token',
  'captchaResponse',
  'key',
  'cookie',
  'authorization',
  'set-cookie',
] as const

const redact = REDACTED_KEYS.flatMap((k) => [`["${k}"]`, `*["${k}"]`, `*.*["${k}"]`])

type Listener = (line: string) => void
const listeners = new Set<Listener>()

const pretty =
  getConfig().platform === 'local'
    ? prettyFactory({
        colorize: Boolean(process.stdout.isTTY),
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname,service,version',
        singleLine: true,
      })
    : null

/** While a test holds the lines, they go to it instead of stdout, so test output is not interleaved. */
const destination = {
  write(line: string) {
    if (listeners.size === 0) return void process.stdout.write(pretty ? pretty(line) : line)
    for (const listener of listeners) listener(line)
  },
}

export const logger = pino(
  {
    level: getConfig().logLevel,
    // No pid or hostname: the platform adds those.
    base: { service: 'auth-portal', version },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: redact, censor: '[redacted]' },
  },
  destination,
)

export function captureLogs(): { lines: string[]; text(): string; stop(): void } {
  const lines: string[] = []
  const listener: Listener = (line) => lines.push(line)
  listeners.add(listener)
  return { lines, text: () => lines.join(''), stop: () => listeners.delete(listener) }
}

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
