/**
 * What the Auth emulator "sends", shown as `npm start` runs: each email as the portal's own link
 * (`/action?mode=…&oobCode=…`, what the email template's action URL points at in production),
 * with its kind and recipient, and each SMS code with its phone number. The emulator keeps them at
 * its documented `/emulator/v1/projects/{id}/oobCodes` and `…/verificationCodes` endpoints.
 */
interface OobCode {
  email: string
  oobCode: string
  oobLink: string
  requestType: string
}
interface SmsCode {
  code: string
  phoneNumber: string
  sessionInfo: string
}

const KINDS: Record<string, string> = {
  PASSWORD_RESET: 'Password reset',
  EMAIL_SIGNIN: 'Sign-in link',
  VERIFY_EMAIL: 'Email verification',
  VERIFY_AND_CHANGE_EMAIL: 'Email change',
  RECOVER_EMAIL: 'Email recovery',
  REVERT_SECOND_FACTOR_ADDITION: 'Second factor removal',
}

/** The portal's own /action link for an emulator oobLink: the same query on the portal's origin. */
export function portalLink(oobLink: string, portalUrl: string): string {
  const { search } = new URL(oobLink)
  return `${portalUrl}/action${search}`
}

async function list<T>(url: string, key: string): Promise<T[]> {
  const res = await fetch(url)
  if (!res.ok) return []
  return ((await res.json()) as Record<string, T[] | undefined>)[key] ?? []
}

/** Polls the emulator every second and prints what is new; returns a stop function. */
export function watchOutbox(
  emulator: { origin: string; projectId: string },
  portalUrl: string,
  print: (line: string) => void,
): () => void {
  const base = `${emulator.origin}/emulator/v1/projects/${emulator.projectId}`
  const seen = new Set<string>()
  let busy = false
  const poll = async () => {
    if (busy) return
    busy = true
    try {
      for (const mail of await list<OobCode>(`${base}/oobCodes`, 'oobCodes')) {
        if (seen.has(mail.oobCode)) continue
        seen.add(mail.oobCode)
        print(`✉  ${KINDS[mail.requestType] ?? mail.requestType} for ${mail.email}: ${portalLink(mail.oobLink, portalUrl)}`)
      }
      for (const sms of await list<SmsCode>(`${base}/verificationCodes`, 'verificationCodes')) {
        if (seen.has(sms.sessionInfo)) continue
        seen.add(sms.sessionInfo)
        print(`✆  SMS code for ${sms.phoneNumber}: ${sms.code}`)
      }
    } catch {
      // The emulator is stopping: nothing to show.
    } finally {
      busy = false
    }
  }
  const timer = setInterval(() => void poll(), 1_000)
  return () => clearInterval(timer)
}
