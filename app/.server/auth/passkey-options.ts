import { z } from 'zod'
import { getConfig } from '~/.server/config'
import type { CredentialJson } from '~/.server/identity'
import { logger } from '~/.server/ops/logger'
import { toBase64url } from './passkey-challenge'

/** Options naming another relying party are refused: no browser would answer them here. */

export const relyingParty = () => new URL(getConfig().publicOrigin).hostname

type Options = Record<string, unknown>
const Descriptor = z.object({ id: z.string(), type: z.string().default('public-key'), transports: z.array(z.string()).optional() })
const descriptors = (list: unknown) =>
  z
    .array(Descriptor)
    .catch([])
    .parse(list ?? [])
    .map((d) => ({ ...d, id: toBase64url(d.id) }))

function sameParty(named: unknown): boolean {
  if (named === undefined || named === relyingParty()) return true
  logger.warn({ event: 'passkey-rp-mismatch', named: String(named), expected: relyingParty() }, 'passkeys: the identity project names another relying party')
  return false
}

export function requestOptions(options: Options, challenge: string) {
  if (!sameParty(options.rpId)) return null
  return {
    challenge,
    rpId: relyingParty(),
    timeout: typeof options.timeout === 'number' ? options.timeout : 60_000,
    userVerification: typeof options.userVerification === 'string' ? options.userVerification : 'required',
    allowCredentials: descriptors(options.allowCredentials),
  }
}

const CreationSchema = z.object({
  rp: z.object({ id: z.string().optional(), name: z.string().optional() }).default({}),
  user: z.object({ id: z.string().min(1), name: z.string(), displayName: z.string() }),
  pubKeyCredParams: z.array(z.object({ type: z.string(), alg: z.number() })).min(1),
  timeout: z.number().default(60_000),
  attestation: z.string().default('none'),
  excludeCredentials: z.unknown().optional(),
  authenticatorSelection: z.record(z.string(), z.unknown()).optional(),
})

export function creationOptions(options: Options, challenge: string) {
  const parsed = CreationSchema.safeParse(options)
  if (!parsed.success || !sameParty(parsed.data.rp.id)) return null
  const { rp, user, excludeCredentials, authenticatorSelection, ...rest } = parsed.data
  return {
    ...rest,
    challenge,
    rp: { id: relyingParty(), name: rp.name ?? relyingParty() },
    user: { ...user, id: toBase64url(user.id) },
    excludeCredentials: descriptors(excludeCredentials),
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required', ...authenticatorSelection },
  }
}

const b64url = z.string().regex(/^[\w-]*$/).max(16_384)
export const CredentialSchema = z.object({
  id: b64url.min(1).max(1_024),
  rawId: b64url.min(1).max(1_024),
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: b64url,
    authenticatorData: b64url.optional(),
    signature: b64url.optional(),
    userHandle: b64url.optional(),
    attestationObject: b64url.optional(),
    transports: z.array(z.string().max(32)).max(8).optional(),
  }),
})

export function postedCredential(text: string | null): CredentialJson | null {
  if (!text || text.length > 65_536) return null
  try {
    return CredentialSchema.parse(JSON.parse(text))
  } catch {
    return null
  }
}
