import { data } from 'react-router'
import type { AppLoadContext } from '~/.server/context'
import { getConfig } from '~/.server/config'
import { verifyCsrf } from './csrf'
import { securityEvent } from '~/.server/ops/security-events'
import { NO_STORE } from '~/lib/headers'

export interface GuardedForm {
  form: FormData
}

/**
 * Every POST goes through here: the body is read once, the CSRF token and the request's origin
 * are checked (ADR 007). A refusal is a 403 the error page explains; nothing has changed.
 */
export async function guardForm(request: Request, context: AppLoadContext): Promise<GuardedForm> {
  refuseOversizedBody(context)
  let form: FormData
  try {
    form = await request.formData()
  } catch {
    throw data({ reason: 'bad-form' }, { status: 400 })
  }
  const verdict = verifyCsrf(request, form, { publicOrigin: context.publicOrigin, origin: context.requestOrigin })
  if (!verdict.ok) {
    securityEvent('csrf-refused', { reqId: context.requestId, ip: context.clientIp, reason: verdict.reason })
    // The error page has no loader data to read the help link from: it travels with the refusal, and
    // whether the form was in another site's frame, where the portal's cookies are third-party ones.
    const help =
      verdict.reason === 'cookie-missing'
        ? { cookiesHelpUrl: getConfig().cookiesHelpUrl, framed: request.headers.get('sec-fetch-dest') === 'iframe' }
        : {}
    throw data({ reason: verdict.reason, ...help }, { status: 403 })
  }
  return { form }
}

/** A body over the limit was left unread by the HTTP server (app/.server/http/body-limit.ts): the 413 page. */
export function refuseOversizedBody(context: AppLoadContext) {
  if (context.bodyTooLarge) throw data({ reason: 'too-large' }, { status: 413, headers: NO_STORE })
}
