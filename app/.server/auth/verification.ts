import type { AppLoadContext } from '~/.server/context'
import { getLocale } from '~/.server/i18n'
import { getIdentity, groupOf } from '~/.server/identity'
import { refusalOf } from './code-messages'
import { securityEvent } from '~/.server/ops/logger'
import { getRateLimits } from '~/.server/policy/rate-limit'
import { rememberSent } from './email-sent'
import { whoOf } from './session'

/**
 * The account page that says how it went; once sent, this browser keeps when,
 * for the wait before "Send the email again" (ADR 083).
 */
export async function sendVerificationEmail(
  request: Request,
  user: { uid: string; email: string | null },
  idToken: string,
  context: Pick<AppLoadContext, 'clientIp' | 'requestId'>,
): Promise<{ location: string; cookies: string[] }> {
  const answer = (outcome: 'sent' | 'limited' | 'failed', cookies: string[] = []) =>
    ({ location: `/account?verification=${outcome}`, cookies })
  const limit = await getRateLimits().consumeReset({ ...whoOf(context), email: user.email ?? user.uid })
  if (!limit.ok) return answer('limited')
  try {
    await getIdentity().sendOobCode({ requestType: 'VERIFY_EMAIL', idToken, locale: getLocale(request) })
  } catch (error) {
    const { code } = await refusalOf(error, limit)
    return answer(groupOf(code) === 'throttled' ? 'limited' : 'failed')
  }
  await limit.release('success')
  securityEvent('verification-sent', whoOf(context, user.email))
  return answer('sent', user.email ? rememberSent(request, user.email, 'verify') : [])
}
