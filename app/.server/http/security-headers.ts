import { randomBytes } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { ErrorRequestHandler, RequestHandler } from 'express'
import type { Config } from '~/.server/config'
import { logger } from '~/.server/ops/logger'

export interface SecurityHeadersOptions {
  config: Pick<Config, 'publicOrigin' | 'frameAncestors' | 'sentryDsn'>
  /** The reCAPTCHA script's URL while the identity service enforces it, else null. */
  recaptcha?: () => string | null
  formTargets: () => string[]
}

// What reCAPTCHA Enterprise needs under CSP (Google's FAQ): the
// script's origin and folder, gstatic, and Google's second frame host.
function recaptchaSources(scriptUrl: string): { scripts: string[]; frames: string[] } {
  const folder = new URL('.', scriptUrl).href
  const google = new URL(scriptUrl).origin === 'https://www.google.com'
  return {
    scripts: [folder, 'https://www.gstatic.com/recaptcha/'],
    frames: [folder, ...(google ? ['https://recaptcha.google.com/recaptcha/'] : [])],
  }
}

const PERMISSIONS_POLICY =
  'accelerometer=(), autoplay=(), browsing-topics=(), camera=(), display-capture=(), geolocation=(), gyroscope=(), ' +
  'hid=(), interest-cohort=(), magnetometer=(), microphone=(), midi=(), payment=(), serial=(), usb=(), ' +
  'xr-spatial-tracking=()'

/** These URLs carry one-time codes that must not leak, even to our own asset requests. */
const NO_REFERRER_PATH = /^\/(?:action|new-password)(?:[/.]|$)/

export function contentSecurityPolicy(options: {
  nonce: string
  https: boolean
  frameAncestors: string
  sentryDsn?: string | null
  recaptchaScriptUrl?: string | null
  formTargets?: string[]
}): string {
  const { nonce, https, frameAncestors, sentryDsn, recaptchaScriptUrl, formTargets = [] } = options
  const recaptcha = recaptchaScriptUrl ? recaptchaSources(recaptchaScriptUrl) : null
  const directives = [
    ['default-src', "'self'"],
    // 'strict-dynamic': scripts loaded by a nonced script are trusted; host lists are ignored.
    ['script-src', `'nonce-${nonce}'`, "'strict-dynamic'", ...(recaptcha?.scripts ?? [])],
    ['object-src', "'none'"],
    ['base-uri', "'none'"],
    ['frame-ancestors', frameAncestors],
    ['form-action', "'self'", ...formTargets],
    ['img-src', "'self'", 'data:'],
    ['style-src', "'self'"],
    ['connect-src', "'self'", ...(sentryDsn ? [new URL(sentryDsn).origin] : [])],
    ...(recaptcha ? [['frame-src', ...recaptcha.frames]] : []),
    ...(https ? [['upgrade-insecure-requests']] : []),
  ]
  return directives.map((d) => d.join(' ')).join('; ')
}

export function securityHeaders({ config, recaptcha, formTargets }: SecurityHeadersOptions): RequestHandler {
  const https = config.publicOrigin.startsWith('https:')
  const denyFraming = config.frameAncestors.trim() === "'none'"
  return (req, res, next) => {
    const nonce = randomBytes(16).toString('base64')
    res.locals.cspNonce = nonce
    res.set({
      'Content-Security-Policy': contentSecurityPolicy({
        nonce,
        https,
        frameAncestors: config.frameAncestors,
        sentryDsn: config.sentryDsn,
        recaptchaScriptUrl: recaptcha?.(),
        formTargets: formTargets(),
      }),
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': NO_REFERRER_PATH.test(req.path) ? 'no-referrer' : 'strict-origin-when-cross-origin',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Resource-Policy': 'same-origin',
      'Permissions-Policy': PERMISSIONS_POLICY,
    })
    if (https) res.set('Strict-Transport-Security', 'max-age=63072000; includeSubDomains')
    // For browsers without CSP frame-ancestors; a custom allow-list cannot be expressed in it.
    if (denyFraming) res.set('X-Frame-Options', 'DENY')
    next()
  }
}

/** An error's own status when it is 4xx or 5xx (such as express.static's 404), else 500. */
export function errorStatus(err: { status?: unknown; statusCode?: unknown } | undefined): number {
  const status = Number(err?.status ?? err?.statusCode)
  return status >= 400 && status < 600 ? status : 500
}

/** Express's final handler overwrites the CSP and, outside production, sends the stack trace. */
export const plainErrorHandler: ErrorRequestHandler = (err, _req, res, next) => {
  if (res.headersSent) return next(err)
  const status = errorStatus(err)
  if (status >= 500) logger.error({ err, reqId: res.locals.requestId }, 'request failed')
  res
    .status(status)
    .type('text/plain')
    .send(STATUS_CODES[status] ?? 'Error')
}
