import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { fakeBuild } from '../../../tests/support/fake-build'
import { parseConfig } from '~/.server/config'
import { createApp } from './app'

/**
 * A shell is made from a render that saw only the shell key's inputs, so whatever a page reads, no
 * visitor's own headers end up in a page served to another (ADR 021). The page here says what it saw.
 */
const build = fakeBuild({
  loader: ({ request, context }) =>
    new Response(
      `<form><input type="hidden" name="csrf" value="token-${Math.random()}"></form>` +
        `<p>agent "${request.headers.get('user-agent') ?? ''}" "${String(context.userAgent)}", ` +
        `other "${request.headers.get('x-visitor') ?? ''}", language "${request.headers.get('accept-language') ?? ''}"</p>`,
      { headers: { 'Content-Type': 'text/html; charset=utf-8' } },
    ),
})

let server: Server
let base: string
beforeAll(async () => {
  const result = parseConfig({})
  if (!result.ok) throw new Error(result.errors.join())
  server = createApp({ config: result.config, build }).listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => void server.close())

const seen = async (visitor: string, init: { query?: string; language?: string } = {}) => {
  const res = await fetch(`${base}/${init.query ?? ''}`, {
    headers: { 'User-Agent': `agent-${visitor}`, 'X-Visitor': visitor, 'Accept-Language': init.language ?? 'en' },
  })
  expect(res.status).toBe(200)
  return /<p>(.*)<\/p>/.exec(await res.text())?.[1]
}

it('renders a page that may become a shell from the key alone: no agent, no other header', async () => {
  for (const visitor of ['one', 'two', 'three'])
    expect(await seen(visitor)).toBe('agent "" "", other "", language "en"')
  expect(await seen('four', { language: 'fr' })).toBe('agent "" "", other "", language "fr"')
})

it('renders every other page with what the visitor sent', async () => {
  expect(await seen('five', { query: '?x=1' })).toBe('agent "agent-five" "agent-five", other "five", language "en"')
})
