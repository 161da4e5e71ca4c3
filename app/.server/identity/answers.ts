import { z } from 'zod'
import {
  IdentityError,
  SERVICE_ERRORS,
  authCodeFor,
  multiFactorRequired,
  serviceErrorName,
  type AuthCode,
} from './errors'
import { MfaPendingSchema, factorsOf } from './schemas'

const ErrorBody = z.object({
  error: z.object({
    message: z.string().optional(),
    details: z.array(z.object({ reason: z.string().optional() })).optional(),
  }),
})

export function interpret<S extends z.ZodType>(status: number, text: string, schema: S): z.output<S> {
  const body = parseJson(text)
  if (status < 200 || status > 299) throw errorFrom(status, body)
  if (body === undefined) throw new IdentityError('auth/internal-error', status, 'MALFORMED_RESPONSE')
  // Some successful answers are failures: the JS SDK reads these the same way.
  const inBand = z
    .object({
      errorMessage: z.string().optional(),
      needConfirmation: z.boolean().optional(),
      mfaPendingCredential: z.string().optional(),
    })
    .safeParse(body)
  if (inBand.success) {
    const { errorMessage, needConfirmation, mfaPendingCredential } = inBand.data
    if (errorMessage)
      throw new IdentityError(authCodeFor(errorMessage), status, serviceErrorName(errorMessage) ?? undefined)
    if (needConfirmation) throw new IdentityError(SERVICE_ERRORS.NEED_CONFIRMATION, status, 'NEED_CONFIRMATION')
    if (mfaPendingCredential) {
      const pending = MfaPendingSchema.parse(body)
      throw multiFactorRequired(status, {
        pendingCredential: pending.mfaPendingCredential,
        factors: factorsOf(pending.mfaInfo),
        email: pending.email || null,
      })
    }
  }
  const parsed = schema.safeParse(body)
  if (!parsed.success) throw new IdentityError('auth/internal-error', status, 'UNEXPECTED_RESPONSE')
  return parsed.data
}

function errorFrom(status: number, body: unknown): IdentityError {
  const parsed = ErrorBody.safeParse(body)
  const names = parsed.success
    ? [parsed.data.error.message ?? '', ...(parsed.data.error.details ?? []).map((d) => d.reason ?? '')]
        .map(serviceErrorName)
        .filter((name): name is string => name !== null)
    : []
  const known = names.find((name) => authCodeFor(name) !== 'auth/internal-error')
  const code: AuthCode = known ? authCodeFor(known) : status === 429 ? 'auth/too-many-requests' : 'auth/internal-error'
  return new IdentityError(code, status, known ?? names[0])
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}
