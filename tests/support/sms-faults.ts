import { startLoopbackIdentity } from './emulator-relay'

/** A loopback identity service in front of the emulator whose SMS starts fail on demand. */
export interface SmsFaults {
  host: string
  /** The next `n` mfaSignIn:start calls fail as a carrier failure would (500 INTERNAL_ERROR). */
  failNext(n: number): void
  close(): Promise<void>
}

export async function startSmsFaults(emulator: { origin: string }): Promise<SmsFaults> {
  let failing = 0
  const service = await startLoopbackIdentity(emulator.origin, async ({ path, answer }) => {
    if (path === '/v2/accounts/mfaSignIn:start' && failing > 0) {
      failing--
      return answer(500, { error: { code: 500, message: 'INTERNAL_ERROR' } })
    }
  })
  return { ...service, failNext: (n) => void (failing = n) }
}
