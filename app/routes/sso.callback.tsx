import { getLocale, getT } from '~/.server/i18n'
import { refuseOversizedBody, respond } from '~/.server/result'
import { handleSsoCallback } from '~/.server/auth/sso'
import { NO_STORE } from '~/lib/headers'
import type { Route } from './+types/sso.callback'

/**
 * Where the sign-in provider sends the visitor back: GET (query) or POST (form_post providers,
 * which post cross-site, hence no CSRF token: the state cookie, sealed to this browser, and its
 * sessionId bind the answer to it). A redirect, so the provider's answer leaves the address bar;
 * or, for a cross-site form_post, a page that posts the answer again from our own origin.
 */
async function callback(request: Request, context: Route.LoaderArgs['context']) {
  const outcome = await handleSsoCallback(request, context)
  if (outcome.kind !== 'repost') return respond(outcome)
  const headers = { ...NO_STORE, 'Content-Type': 'text/html; charset=utf-8' }
  return new Response(repostPage(outcome, getLocale(request), context.cspNonce), { headers })
}

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c)

/** Posts itself with JavaScript; without it, one click on the button. */
function repostPage(
  { action, fields }: { action: string; fields: [string, string][] },
  locale: ReturnType<typeof getLocale>,
  nonce: string,
): string {
  const t = getT(locale)
  const inputs = fields.map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
  return `<!DOCTYPE html><html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex, nofollow"><title>${escape(t('sso.title'))}</title></head><body><form method="post" action="${escape(action)}"><p>${escape(t('sso.finishing'))}</p>${inputs.join('')}<button type="submit">${escape(t('emailAction.continue'))}</button></form><script nonce="${escape(nonce)}">document.forms[0].submit()</script></body></html>`
}

export async function loader({ request, context }: Route.LoaderArgs) {
  return callback(request, context)
}

export async function action({ request, context }: Route.ActionArgs) {
  refuseOversizedBody(context)
  return callback(request, context)
}
