import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import { COOKIES } from '~/.server/cookies'
import type { CredentialJson } from '~/.server/identity'
import { getRateLimits } from '~/.server/policy/rate-limit'
import { flowCookie } from './flow-state'

// The challenge is sealed to this browser, lives 5 minutes and is spent
// once in the rate-limit store, shared by every replica (see ADR 067).

export const CHALLENGE_SECONDS = 5 * 60
export type Ceremony = 'get' | 'create'
export type ChallengeRefusal = 'missing' | 'expired' | 'mismatch' | 'replayed'

const ChallengeSchema = z.object({
  id: z.string().min(1),
  challenge: z.string().min(1),
  ceremony: z.enum(['get', 'create']),
  until: z.number(),
})
const pending = flowCookie(COOKIES.passkeyChallenge, ChallengeSchema)

export const toBase64url = (value: string) => Buffer.from(value, 'base64').toString('base64url')

export function issueChallenge(request: Request, serviceChallenge: string, ceremony: Ceremony) {
  const challenge = toBase64url(serviceChallenge)
  const state = { id: randomBytes(16).toString('base64url'), challenge, ceremony, until: Date.now() + CHALLENGE_SECONDS * 1000 }
  return { challenge, setCookies: pending.write(request, state) }
}

export const clearChallenge = () => pending.clear()

const ClientData = z.object({
  type: z.string(),
  challenge: z.string(),
  origin: z.string(),
  crossOrigin: z.boolean().optional(),
})

function clientDataOf(credential: CredentialJson) {
  const encoded = credential.response.clientDataJSON
  if (typeof encoded !== 'string') return null
  try {
    return ClientData.parse(JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')))
  } catch {
    return null
  }
}

export async function checkAnswer(
  request: Request,
  credential: CredentialJson,
  expected: { ceremony: Ceremony; origin: string },
  spend = (id: string) => getRateLimits().spendChallenge(id),
): Promise<{ ok: true } | { ok: false; reason: ChallengeRefusal }> {
  const state = pending.read(request)
  if (!state || state.ceremony !== expected.ceremony) return { ok: false, reason: 'missing' }
  if (Date.now() > state.until) return { ok: false, reason: 'expired' }
  const client = clientDataOf(credential)
  const matches =
    client !== null &&
    client.type === `webauthn.${expected.ceremony}` &&
    client.challenge === state.challenge &&
    client.origin === expected.origin &&
    client.crossOrigin !== true
  if (!matches) return { ok: false, reason: 'mismatch' }
  if (!(await spend(state.id))) return { ok: false, reason: 'replayed' }
  return { ok: true }
}
