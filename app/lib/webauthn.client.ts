type Json = Record<string, unknown>
type Descriptor = { id: string; type: string; transports?: string[] }
type Parsers = {
  parseRequestOptionsFromJSON?: (options: Json) => PublicKeyCredentialRequestOptions
  parseCreationOptionsFromJSON?: (options: Json) => PublicKeyCredentialCreationOptions
}

const parsers = () => window.PublicKeyCredential as unknown as Parsers

const toBytes = (text: string) =>
  Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0))
const toText = (buffer: ArrayBuffer | null) =>
  buffer === null
    ? undefined
    : btoa(String.fromCharCode(...new Uint8Array(buffer)))
        .replace(/\+/g, '-')
        .replace(/\//g, '_')
        .replace(/=+$/, '')
const descriptors = (list: unknown) =>
  ((list ?? []) as Descriptor[]).map((d) => ({ ...d, id: toBytes(d.id) }) as PublicKeyCredentialDescriptor)

function requestOptions(json: Json): PublicKeyCredentialRequestOptions {
  const parse = parsers().parseRequestOptionsFromJSON
  if (parse) return parse(json)
  return { ...json, challenge: toBytes(json.challenge as string), allowCredentials: descriptors(json.allowCredentials) }
}

function creationOptions(json: Json): PublicKeyCredentialCreationOptions {
  const parse = parsers().parseCreationOptionsFromJSON
  if (parse) return parse(json)
  const user = json.user as { id: string; name: string; displayName: string }
  return {
    ...(json as unknown as PublicKeyCredentialCreationOptions),
    challenge: toBytes(json.challenge as string),
    user: { ...user, id: toBytes(user.id) },
    excludeCredentials: descriptors(json.excludeCredentials),
  }
}

/** The credential the browser made or chose, as JSON; none is a refusal. */
function toJson(found: Credential | null): Json {
  if (!found) throw new DOMException('no credential', 'NotAllowedError')
  const credential = found as PublicKeyCredential
  const own = (credential as unknown as { toJSON?: () => Json }).toJSON
  if (typeof own === 'function') return own.call(credential)
  const r = credential.response
  const response =
    r instanceof AuthenticatorAssertionResponse
      ? { authenticatorData: toText(r.authenticatorData), signature: toText(r.signature), userHandle: toText(r.userHandle) }
      : { attestationObject: toText((r as AuthenticatorAttestationResponse).attestationObject), transports: (r as AuthenticatorAttestationResponse).getTransports() }
  return {
    id: credential.id,
    rawId: toText(credential.rawId),
    type: credential.type,
    response: { clientDataJSON: toText(r.clientDataJSON), ...response },
  }
}

export async function autofillAvailable(): Promise<boolean> {
  const check = (window.PublicKeyCredential as { isConditionalMediationAvailable?: () => Promise<boolean> } | undefined)
    ?.isConditionalMediationAvailable
  return check ? check().catch(() => false) : false
}

export async function getPasskey(options: Json, mediation: 'conditional' | 'optional', signal?: AbortSignal): Promise<Json> {
  return toJson(await navigator.credentials.get({ publicKey: requestOptions(options), mediation, signal }))
}

export async function createPasskey(options: Json): Promise<Json> {
  return toJson(await navigator.credentials.create({ publicKey: creationOptions(options) }))
}
