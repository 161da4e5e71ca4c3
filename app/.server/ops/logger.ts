import pino from 'pino'
import { prettyFactory } from 'pino-pretty'
import { getConfig } from '~/.server/config'
import { version } from '../../../package.json'

/** Secrets that must never reach a log line, wherever they sit in a logged object. */
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

/** PLATFORM=local: human-readable lines on the terminal; everywhere else one JSON object per line. */
const pretty =
  getConfig().platform === 'local'
    ? prettyFactory({
        colorize: Boolean(process.stdout.isTTY),
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname,service,version',
        singleLine: true,
      })
    : null

/**
 * Writes to stdout; while a test holds the lines (captureLogs(), always the JSON line), to it
 * instead, so that the test run's output is not interleaved with log lines.
 */
const destination = {
  write(line: string) {
    if (listeners.size === 0) return void process.stdout.write(pretty ? pretty(line) : line)
    for (const listener of listeners) listener(line)
  },
}

export const logger = pino(
  {
    level: getConfig().logLevel,
    // Every line says which program and version wrote it (no pid or hostname: the platform adds those).
    base: { service: 'auth-portal', version },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: redact, censor: '[redacted]' },
  },
  destination,
)

export type Logger = typeof logger

/** For tests: every log line written from now until stop(). */
export function captureLogs(): { lines: string[]; text(): string; stop(): void } {
  const lines: string[] = []
  const listener: Listener = (line) => lines.push(line)
  listeners.add(listener)
  return { lines, text: () => lines.join(''), stop: () => listeners.delete(listener) }
}
