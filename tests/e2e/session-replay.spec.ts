import type { Page } from '@playwright/test'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync, inflateSync } from 'node:zlib'
import { uniqueEmail } from '../../dev/emulator'
import type { Portal } from '../../dev/portal'
import { startMfaIdentity } from '../support/mfa-identity'
import { BUDGETS, kb } from '../support/page-size'
import { totpCode } from '../support/totp'
import { confirmItsYou, expect, portalBehind, portalWith, signIn, test as base } from './fixtures'

/**
 * Session Replay against a loopback server standing in for Sentry's ingest endpoint (ADR 030):
 * a whole sign-in with a second factor is recorded, and what reaches "Sentry" holds no typed
 * address, password or code, and no CSRF token. Every session is recorded here (sample rate 1).
 */

interface Collector {
  dsn: string
  /** Every replay recording received so far, decompressed, as text. */
  recordings(): string[]
  /** Every envelope received so far, as text (compressed parts stay as they came). */
  envelopes(): string[]
}

/** The items of a Sentry envelope: a header line, then per item a header line and its payload. */
function envelopeItems(body: Buffer): Array<{ type: string; payload: Buffer }> {
  const items: Array<{ type: string; payload: Buffer }> = []
  let at = body.indexOf(0x0a) + 1
  while (at > 0 && at < body.length) {
    const end = body.indexOf(0x0a, at)
    const header = JSON.parse(body.subarray(at, end < 0 ? body.length : end).toString('utf8')) as {
      type: string
      length?: number
    }
    const start = end + 1
    const stop =
      header.length !== undefined ? start + header.length : (body.indexOf(0x0a, start) + 1 || body.length + 1) - 1
    items.push({ type: header.type, payload: body.subarray(start, stop) })
    at = stop + 1
  }
  return items
}

/** A replay recording is `{"segment_id":n}\n` then the rrweb events, as JSON or zlib-deflated. */
function recordingText(payload: Buffer): string {
  const events = payload.subarray(payload.indexOf(0x0a) + 1)
  return events[0] === 0x78 ? inflateSync(events).toString('utf8') : events.toString('utf8')
}

/** A loopback stand-in for Sentry's ingestion, which keeps every envelope posted to it. */
async function startCollector(): Promise<Collector & { close(): Promise<unknown> }> {
  const bodies: Buffer[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      if (req.method === 'POST') bodies.push(Buffer.concat(chunks))
      // The browser SDK posts across origins: answer as Sentry does.
      res.writeHead(200, { 'Access-Control-Allow-Origin': '*', 'Content-Type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    dsn: `http://publickey@127.0.0.1:${(server.address() as AddressInfo).port}/1`,
    envelopes: () => bodies.map((b) => b.toString('latin1')),
    recordings: () =>
      bodies.flatMap((b) =>
        envelopeItems(b)
          .filter((i) => i.type === 'replay_recording')
          .map((i) => recordingText(i.payload)),
      ),
    close: () => new Promise((r) => server.close(r)),
  }
}

const test = base.extend<{ replay: { service: Collector & { close(): Promise<unknown> }; portal: Portal }; collector: Collector }>({
  replay: portalWith(startCollector, (collector) => ({ SENTRY_DSN: collector.dsn, SENTRY_REPLAY_SESSION_SAMPLE_RATE: '1' })),
  collector: async ({ replay }, use) => use(replay.service),
  baseURL: async ({ replay }, use) => use(replay.portal.url),
})

const PASSWORD = 'Correct-Horse-42'

/** Recording on, behind the loopback TOTP service (the emulator has no authenticator apps). */
const totpTest = base.extend<{ recorded: { identity: Awaited<ReturnType<typeof startRecordedTotp>>; portal: Portal } }>({
  recorded: portalBehind(
    (emulator) => startRecordedTotp(emulator.origin),
    ({ collector }) => ({ SENTRY_DSN: collector.dsn, SENTRY_REPLAY_SESSION_SAMPLE_RATE: '1' }),
  ),
  baseURL: async ({ recorded }, use) => use(recorded.portal.url),
})

async function startRecordedTotp(emulatorOrigin: string) {
  const [identity, collector] = await Promise.all([startMfaIdentity(emulatorOrigin), startCollector()])
  return {
    host: identity.host,
    collector,
    close: async () => {
      await Promise.all([identity.close(), collector.close()])
    },
  }
}

/**
 * What `collector` has received, once the page's replay was told the window lost focus: Replay then sends what
 * it holds at once, as when a visitor switches away, instead of on its next 5-second flush.
 */
async function recordedBy(page: Page, collector: Collector): Promise<string> {
  await page.evaluate(() => {
    window.dispatchEvent(new Event('blur'))
    window.dispatchEvent(new Event('focus'))
  })
  return collector.recordings().join('\n')
}

test('a replayed sign-in with a second factor holds no address, password, code or CSRF token @js-only', async ({
  page,
  admin,
  collector,
}) => {
  test.setTimeout(120_000)
  const phone = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`
  const email = uniqueEmail('replay')
  const { localId } = await admin.createUser(email, PASSWORD)
  await admin.enrollSms(localId, [{ phoneNumber: phone }])

  await page.goto('/')
  const csrf = await page.locator('input[name="csrf"]').first().inputValue()
  expect(csrf.length, 'the form carries a CSRF token').toBeGreaterThan(10)
  // Replay may start after the page is interactive: type only once it records (its first segment is here).
  await expect.poll(() => collector.recordings().length, { timeout: 30_000 }).toBeGreaterThan(0)

  await page.getByLabel('Adresse électronique').fill(email)
  await page.getByLabel('Mot de passe').fill(PASSWORD)
  await page.getByRole('button', { name: 'Se connecter' }).click()
  await expect(page.getByRole('heading', { name: 'Vérification en deux étapes' })).toBeVisible()
  const code = await admin.lastSmsCode(phone)
  expect(code).toMatch(/^\d{6}$/)
  const field = page.getByLabel('Code de vérification')
  await field.pressSequentially(code!)
  await page.getByRole('button', { name: 'Vérifier' }).click()
  await expect(page.getByRole('heading', { name: 'Votre session est ouverte' })).toBeVisible()
  await expect(page.getByText(email)).toBeVisible()

  // The recording covers the whole visit: the signed-in page's heading (text is recorded) arrived.
  await expect
    .poll(() => recordedBy(page, collector), { timeout: 30_000, message: 'the signed-in page was recorded' })
    .toContain('Votre session est ouverte')
  const sent = [...collector.envelopes(), ...collector.recordings()].join('\n')
  expect(sent).toContain('replay_recording')
  const secrets = { email, 'email local part': email.split('@')[0]!, password: PASSWORD, code: code!, csrf }
  const leaked = Object.entries(secrets).filter(([, secret]) => sent.includes(secret))
  expect(
    leaked.map(([what]) => what),
    'what reached Sentry',
  ).toEqual([])
})

test('a replay of an emailed reset link holds neither its code nor the address @js-only', async ({ page, admin, collector }) => {
  test.setTimeout(120_000)
  const email = uniqueEmail('replay-link')
  await admin.createUser(email, PASSWORD)
  await page.goto('/forgot-password')
  await page.getByLabel('Adresse électronique').fill(email)
  await page.getByRole('button', { name: 'Envoyer le courriel' }).click()
  await expect(page.getByRole('status')).toBeVisible()
  const link = await admin.emailedLink(email, 'PASSWORD_RESET', new URL(page.url()).origin)
  const oobCode = new URL(link).searchParams.get('oobCode') ?? ''
  expect(oobCode.length, 'the link carries a code').toBeGreaterThan(10)
  await page.goto(link)
  await expect(page.getByRole('heading', { name: 'Veuillez saisir un nouveau mot de passe' })).toBeVisible()
  await expect
    .poll(() => recordedBy(page, collector), { timeout: 30_000, message: 'the new-password page was recorded' })
    .toContain('Veuillez saisir un nouveau mot de passe')
  const sent = [...collector.envelopes(), ...collector.recordings()].join('\n')
  const leaked = Object.entries({ oobCode, email }).filter(([, secret]) => sent.includes(secret))
  expect(
    leaked.map(([what]) => what),
    'what reached Sentry',
  ).toEqual([])
})

test('with reporting on, a first visit stays under the JavaScript budget: the reporter waits for the browser to be idle @js-only', async ({
  page,
}) => {
  // A browser that is never idle: what it fetches is what the page needs to be interactive.
  await page.addInitScript(() => {
    window.requestIdleCallback = () => 0
  })
  await page.goto('/', { waitUntil: 'networkidle' })
  await expect(page.getByRole('button', { name: 'Se connecter' })).toBeVisible()
  const scripts = await page.evaluate(() => [
    ...new Set(
      performance
        .getEntriesByType('resource')
        .map((e) => e.name)
        .filter((url) => new URL(url).pathname.endsWith('.js')),
    ),
  ])
  expect(scripts.length, 'scripts were fetched').toBeGreaterThan(0)
  // Gzipped as tests/support/page-size.ts measures pages.
  let total = 0
  for (const url of scripts) total += gzipSync(Buffer.from(await (await fetch(url)).arrayBuffer()), { level: 9 }).length
  expect(total, `${kb(total)} KB of JavaScript: ${scripts.join(', ')}`).toBeLessThan(BUDGETS.js)
  expect(
    scripts.filter((url) => /\/sentry[^/]*\.js$/.test(url)),
    'reporting chunks fetched',
  ).toEqual([])
})

totpTest(
  'a replay recorded while adding an authenticator app holds neither its secret, nor any group of it, nor the QR code @js-only',
  async ({ page, admin, recorded }) => {
    totpTest.setTimeout(120_000)
    const { collector } = recorded.identity
    const email = uniqueEmail('replay-totp')
    const { localId } = await admin.createUser(email, PASSWORD)
    await admin.verifyEmail(localId)
    await signIn(page, email, PASSWORD, `/?${new URLSearchParams({ redirect: '/account/second-factor/totp' })}`)
    await confirmItsYou(page, PASSWORD)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Ajouter une application d’authentification')
    const shown = (await page.getByRole('definition').textContent())?.trim() ?? ''
    expect(shown).toMatch(/^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/)
    const secret = shown.replace(/\s/g, '')
    const qr = page.getByRole('img', { name: 'Code QR à scanner avec votre application d’authentification' })
    const qrPath = (await qr.locator('path').first().getAttribute('d')) ?? ''
    expect(qrPath.length, 'the QR code is drawn as a path').toBeGreaterThan(100)
    // The page as recorded (its text is kept): the secret's page reached the collector.
    await expect
      .poll(() => recordedBy(page, collector), { timeout: 30_000, message: 'the enrolment page was recorded' })
      .toContain('Ajouter une application d’authentification')

    await page.getByLabel('Code de l’application').fill(totpCode(secret))
    await page.getByRole('button', { name: 'Ajouter', exact: true }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Votre compte')
    await expect(page.getByRole('status')).toContainText('L’application d’authentification a été ajoutée.')
    await expect
      .poll(() => recordedBy(page, collector), { timeout: 30_000, message: 'the account page was recorded' })
      .toContain('L’application d’authentification a été ajoutée.')

    const sent = [...collector.envelopes(), ...collector.recordings()].join('\n')
    expect(sent).toContain('replay_recording')
    const groups = shown.split(' ').filter((group) => group.length === 4)
    const leaked = [
      ...(sent.includes(secret) ? ['the secret'] : []),
      ...groups.filter((group) => sent.includes(group)).map((group) => `the group ${group}`),
      ...(sent.includes(qrPath.slice(0, 40)) ? ["the QR code's path"] : []),
      ...(sent.includes('otpauth') ? ['the otpauth URI'] : []),
    ]
    expect(leaked, 'what reached Sentry').toEqual([])
  },
)
