/**
 * The memory soak of `npm run bench`: a portal of its own, under the image's NODE_OPTIONS, answers
 * 20 connections for BENCH_SOAK_S seconds (300 unless set), each sending in turn the sign-in page, a
 * refused sign-in (400), a signed-in page and a reset request. RSS is read each second, and its peak
 * is the kernel's (VmHWM). Then one refused new password loads the password dictionaries and the
 * same load goes on for a minute: what a pod holds once anyone has changed a password (ADR 064).
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { SERVER_ARGS, SERVER_ENV, SERVER_NODE_ARGS } from '../dev/portal'
import { autocannon, resetPeak, rssMb, startServer } from './bench-harness'

export const RSS_BOUND_MB = 200
/** Before ADR 064: the previous bench's rounds, and the operators' review of the running portal. */
export const OLD_RSS =
  "old: 264.4 MB max in the previous bench; 278 MB after 40 s at 20 connections in the operators' review"
const CONNECTIONS = 20
const SOAK_S = Number(process.env.BENCH_SOAK_S ?? 300)
const DICTIONARIES_S = Math.min(60, SOAK_S)
const WEAK = 'Password1234!'

export interface SoakResult {
  curve: Array<[string, number]>
  peak: number
  dictionaries: number
}

/** A CSRF pair from the sign-in page, then a session from a sign-in with it. */
async function signIn(origin: string, email: string, password: string) {
  const page = await fetch(`${origin}/`)
  const csrfCookie = /^csrf=[^;]+/.exec(page.headers.get('set-cookie') ?? '')?.[0]
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1]
  if (!csrfCookie || !csrf) throw new Error('no CSRF cookie or token on GET /')
  const form = { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: csrfCookie }
  const signedIn = await fetch(`${origin}/?index`, {
    method: 'POST',
    headers: form,
    body: new URLSearchParams({ email, password, csrf }).toString(),
    redirect: 'manual',
  })
  const session = signedIn.headers
    .getSetCookie()
    .find((c) => c.startsWith('session='))
    ?.split(';')[0]
  if (!session) throw new Error(`the soak's sign-in answered ${signedIn.status} without a session`)
  return { csrf, form, session }
}

async function mixedLoad(origin: string, email: string, password: string, seconds: number) {
  const { csrf, form, session } = await signIn(origin, email, password)
  const result = await autocannon({
    url: origin,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      { method: 'GET', path: '/', headers: { 'Accept-Language': 'fr-FR,fr;q=0.9' } },
      {
        method: 'POST',
        path: '/?index',
        headers: form,
        body: new URLSearchParams({ email, password: 'wrong-password', csrf }).toString(),
      },
      { method: 'GET', path: '/account', headers: { Cookie: session, 'Accept-Language': 'en' } },
      {
        method: 'POST',
        path: '/forgot-password',
        headers: form,
        body: new URLSearchParams({ email, csrf }).toString(),
      },
    ],
  })
  const answers = Object.entries(result.statusCodeStats)
    .map(([code, { count }]) => `${code} ×${count}`)
    .join(', ')
  console.log(`  ${result.requests.average.toFixed(0)} req/s; answers ${answers}; errors ${result.errors}`)
}

/** One new password judged and refused: the server loads zxcvbn-ts and its dictionaries for it. */
async function loadDictionaries(origin: string, email: string, password: string) {
  const { csrf, form, session } = await signIn(origin, email, password)
  const res = await fetch(`${origin}/account/password`, {
    method: 'POST',
    headers: { ...form, Cookie: `${form.Cookie}; ${session}` },
    body: new URLSearchParams({ csrf, password: WEAK, confirmation: WEAK }).toString(),
    redirect: 'manual',
  })
  if (res.status !== 400) throw new Error(`the weak new password answered ${res.status}, expected 400`)
}

export async function soak(env: Record<string, string>, email: string, password: string): Promise<SoakResult> {
  const sessions = path.join(mkdtempSync(path.join(tmpdir(), 'bench-soak-')), 'sessions.sqlite')
  const portal = await startServer(
    'the soak portal',
    SERVER_ARGS,
    { ...env, SESSION_STORE_PATH: sessions },
    '/healthz',
  )
  console.log(
    `\nMemory soak: a portal of its own (node ${SERVER_NODE_ARGS.join(' ')}, NODE_OPTIONS=${SERVER_ENV.NODE_OPTIONS}, MALLOC_ARENA_MAX=${SERVER_ENV.MALLOC_ARENA_MAX}), ${CONNECTIONS} connections, ${SOAK_S} s ` +
      '(BENCH_SOAK_S), each sending GET /, a refused sign-in, GET /account signed in, POST /forgot-password in turn',
  )
  const curve: Array<[string, number]> = [['start', rssMb(portal.pid)]]
  const started = Date.now()
  const sampler = setInterval(() => {
    const minute = Math.floor((Date.now() - started) / 60_000)
    if (minute > curve.length - 1 && minute * 60 <= SOAK_S) curve.push([`${minute} min`, rssMb(portal.pid)])
  }, 1_000)
  await mixedLoad(portal.origin, email, password, SOAK_S)
  clearInterval(sampler)
  const last = SOAK_S % 60 === 0 ? `${SOAK_S / 60} min` : 'end'
  if (curve.at(-1)![0] !== last) curve.push([last, rssMb(portal.pid)])
  const peak = rssMb(portal.pid, 'VmHWM')
  console.log(
    `  RSS MB: ${curve.map(([at, mb]) => `${at} ${mb.toFixed(1)}`).join(', ')}; peak ${peak.toFixed(1)} (${OLD_RSS})`,
  )

  resetPeak(portal.pid)
  await loadDictionaries(portal.origin, email, password)
  console.log(
    `  then one new password judged (the dictionaries loaded): RSS ${rssMb(portal.pid).toFixed(1)} MB, and ${DICTIONARIES_S} s more of the same:`,
  )
  await mixedLoad(portal.origin, email, password, DICTIONARIES_S)
  const dictionaries = rssMb(portal.pid, 'VmHWM')
  console.log(`  peak ${dictionaries.toFixed(1)} MB with the dictionaries`)
  return { curve, peak, dictionaries }
}
