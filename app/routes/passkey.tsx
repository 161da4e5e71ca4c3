import { formText } from '~/lib/form-text'
import { finishPasskeySignIn, startPasskeySignIn } from '~/.server/auth/passkey-sign-in'
import { postedCredential } from '~/.server/auth/passkey-options'
import { getFlags } from '~/.server/ops/flags'
import { redirectOf } from '~/.server/policy/redirect'
import { errorPage, guardForm, page, respond } from '~/.server/result'
import type { Route } from './+types/passkey'

/**
 * The sign-in page's passkey steps, posted by its script (app/components/passkey-sign-in.tsx) and
 * answered in JSON: `start` gives the ceremony's options, `finish` takes the browser's answer with
 * the form's redirect and "Keep me signed in". Not found while FLAG_PASSKEYS is off.
 */
export async function action({ request, context }: Route.ActionArgs) {
  if (!(await getFlags()).passkeys) return respond(errorPage(404, 'not-found'))
  const { form, redirect } = await guardForm(request, context)
  const intent = formText(form, 'intent')
  if (intent === 'start') return respond(await startPasskeySignIn(request, context))
  const credential = postedCredential(formText(form, 'credential'))
  if (intent !== 'finish' || !credential) return respond(page({ error: 'passkey.refused' }, { status: 400 }))
  const finish = { credential, redirect: redirectOf(redirect), remember: form.has('remember') }
  return respond(await finishPasskeySignIn(request, finish, context))
}
