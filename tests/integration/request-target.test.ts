import { describe, expect, it } from 'vitest'
import { waitFor } from '../../dev/ports'
import { ownPortal } from '../support/portal'
import { rawRequest } from '../support/raw-http'

/**
 * A request target that is not a path (RFC 9112 §3.2): the absolute form a proxy is sent
 * (`GET http://host/path?query`) and the asterisk form (`OPTIONS *`). The portal is no proxy:
 * both are refused with the translated 400 page, and no log line holds the query (an emailed
 * link's query carries its one-time code).
 */
const CODE = 'oob-code-7f3a9c-never-logged'

describe('request targets that are not a path', () => {
  const portal = ownPortal({ LOG_LEVEL: 'debug' })

  it.each([
    `GET http://localhost/new-password?oobCode=${CODE}&mode=resetPassword HTTP/1.1`,
    `GET http://evil.example/?oobCode=${CODE} HTTP/1.1`,
    `POST http://localhost/forgot-password?oobCode=${CODE} HTTP/1.1`,
    'GET * HTTP/1.1',
    'OPTIONS * HTTP/1.1',
  ])('%s answers the 400 page, and no log line holds the query', async (line) => {
    const accessLines = () => portal.output().split('"msg":"request"').length
    const before = accessLines()
    const answer = await rawRequest(portal.port, line, [
      ['Host', `localhost:${portal.port}`],
      ['Cookie', 'i18n_redirected=en'],
      ['Content-Length', '0'],
    ])
    expect(answer.status, answer.head).toBe(400)
    expect(answer.head).toMatch(/content-type: text\/html/i)
    expect(answer.body).toContain('This page could not be shown')
    expect(answer.body).not.toMatch(/\bat \S+ \(|Error:/)
    expect(answer.body).not.toContain(CODE)
    // The access line is written when the response closes: wait for it, then look at every line.
    await waitFor('the access log line', async () => accessLines() > before, 5_000)
    expect(portal.output()).not.toContain(CODE)
    expect(portal.output()).not.toContain('oobCode')
  })

  it('still serves pages', async () => {
    expect((await fetch(`${portal.url}/healthz`)).status).toBe(200)
    expect((await fetch(`${portal.url}/`)).status).toBe(200)
  })
})
