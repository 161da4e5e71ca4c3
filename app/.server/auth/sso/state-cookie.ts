import { COOKIES } from '~/.server/cookies'
import { flowCookie } from '../flow-state'
import { SsoStateSchema } from './protocol'

// SameSite=None over https: a form_post provider returns with a cross-site POST, which would not carry a Lax cookie.
export const stateCookie = flowCookie(COOKIES.ssoState, SsoStateSchema)
