import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync, inflateSync } from 'node:zlib'
import { uniqueEmail } from '../../dev/emulator'
import type { Portal } from '../../dev/portal'
import { BUDGETS, kb } from '../support/page-size'
import { expect, portalWith, test as base } from './fixtures'

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
    .poll(() => collector.recordings().join('\n'), { timeout: 30_000, message: 'the signed-in page was recorded' })
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
