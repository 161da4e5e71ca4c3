import { afterEach } from 'vitest'
import { type RateLimits, type SignInWho, createRateLimits } from '~/.server/policy/rate-limit'
import type { Attempt } from '~/.server/policy/rate-limit'

/** Small limits, so that a test reaches each one in a few attempts. */
export const limits = {
  signInPerEmailIp: 3,
  signInPerIp: 10,
  signInPerEmail: 5,
  signInPerDevice: 4,
  resetPerEmail: 2,
  resetPerIp: 4,
  newPasswordPerIp: 2,
  mfaCodePerPending: 3,
  mfaCodePerIp: 7,
  mfaSmsPerPending: 2,
  mfaSmsPerIp: 3,
  mfaCodePerAccount: 8,
  mfaSmsPerAccount: 5,
  mfaSmsPerPhone: 4,
  linkPerEmail: 2,
  resetPerDevice: 2,
  enrolPerIp: 4,
  enrolPerAccount: 3,
  enrolSmsPerNumber: 2,
  emailChangePerAccount: 3,
  logoutPerIp: 5,
  passkeyStartPerIp: 5,
  passkeyChallenge: 1,
  signUpPerIp: 3,
}

export const alice = { ip: '203.0.113.7', email: 'Alice@Example.com' }

const open: RateLimits[] = []
/** Rate limits over `limits`, in memory or in Redis; closed after each test of the calling file. */
export function makeLimits(redisUrl: string | null = null, keyPrefix = 'test', memoryMaxKeys?: number): RateLimits {
  const redis = { url: redisUrl, sentinels: null, sentinelMaster: null, password: null, tls: false }
  const made = createRateLimits({ limits, redis, keyPrefix, memoryMaxKeys })
  open.push(made)
  return made
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()))
})

/** A sign-in attempt that ends as a wrong password: its points stay. Returns whether it was let through. */
export async function fail(rl: RateLimits, who: SignInWho): Promise<boolean> {
  const attempt = await rl.consumeSignIn(who)
  if (attempt.ok) await attempt.release('failure')
  return attempt.ok
}

/** Whether a sign-in attempt would be let through now, without counting it (released as 'no-verdict'). */
export async function allowed(rl: RateLimits, who: SignInWho): Promise<Attempt> {
  const attempt = await rl.consumeSignIn(who)
  if (attempt.ok) await attempt.release('no-verdict')
  return attempt
}
