import type { AppLoadContext } from '~/.server/context'
import { mfaRequiredOf } from '~/.server/identity'
import type { CheckedRedirect } from '~/.server/policy/redirect'
import { handleNewSession } from './session'
import { beginSecondFactor } from './second-factor'

/**
 * How the email link, a passkey and a recent login end once their first factor is answered: a session,
 * or the second factor when the account asks for one. The password sign-in writes the same steps out in
 * routes/sign-in.server.ts.
 */
export async function afterFirstFactor(
  request: Request,
  attempt: { release(outcome: 'success' | 'no-verdict'): Promise<void> },
  first: {
    method: 'password' | 'email-link' | 'passkey'
    email: string
    redirect: CheckedRedirect | null
    remember: boolean
  },
  answer: () => Promise<{ idToken: string; email?: string }>,
  context: AppLoadContext,
): Promise<{ ok: true; setCookies: string[]; location: string } | { ok: false; error: unknown }> {
  try {
    const { idToken, email } = await answer()
    const session = await handleNewSession(idToken, { ...first, email: email || first.email }, context)
    await attempt.release('success')
    return { ok: true, ...session }
  } catch (error) {
    const mfa = mfaRequiredOf(error)
    if (!mfa) return { ok: false, error }
    await attempt.release('no-verdict')
    return {
      ok: true,
      ...(await beginSecondFactor(request, { mfa, ...first, email: mfa.email ?? first.email }, context)),
    }
  }
}
