import { z } from 'zod'
import { COOKIES } from '~/.server/cookies'
import { flowCookie } from '../flow-state'
import { ConfirmingSchema } from '../second-factor/pending'
import type { SsoState } from './protocol'

const SsoStateSchema = z.object({
  sessionId: z.string(),
  callbackOrigin: z.string(),
  nonce: z.string(),
  redirect: z.string().nullable(),
  remember: z.boolean(),
  confirm: ConfirmingSchema.nullable(),
})

// SameSite=None over https: a form_post provider returns with a cross-site POST, which would not carry a Lax cookie.
export const stateCookie = flowCookie<SsoState>(COOKIES.ssoState, SsoStateSchema)
