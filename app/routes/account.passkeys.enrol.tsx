import { formText } from '~/lib/form-text'
import { requireConfirmed } from '~/.server/auth/account'
import { postedCredential } from '~/.server/auth/passkey-options'
import { ADD_PATH, finishEnrolment, startEnrolment } from '~/.server/auth/passkeys'
import { getFlags } from '~/.server/ops/flags'
import { errorPage, guardForm, page, respond } from '~/.server/result'
import type { Route } from './+types/account.passkeys.enrol'

/** The add page's script (app/routes/account.passkeys.add.tsx) posts `start` (the options) then `finish` (the new passkey and its name); answered in JSON. */
export async function action({ request, context }: Route.ActionArgs) {
  if (!(await getFlags()).passkeys) return respond(errorPage(404, 'not-found'))
  const { form } = await guardForm(request, context)
  const confirmed = await requireConfirmed(request, ADD_PATH)
  if (formText(form, 'intent') === 'start') return respond(await startEnrolment(request, confirmed, context))
  const credential = postedCredential(formText(form, 'credential'))
  if (!credential) return respond(page({ error: 'passkey.refused' }, { status: 400 }))
  const name = formText(form, 'name').trim() || 'Passkey'
  return respond(await finishEnrolment(request, confirmed, { credential, name }, context))
}
