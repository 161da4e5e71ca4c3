import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, inject, it } from 'vitest'
import { startPortal } from '../../dev/portal'
import { headingText } from '../support/http-browser'

/** Feature flags, as an operator sets them: the `sso` flag switches the sign-in title. */
async function signInTitle(env: Record<string, string>) {
  const emulator = inject('emulator')
  const portal = await startPortal({
    FIREBASE_AUTH_EMULATOR_HOST: emulator.host,
    FIREBASE_PROJECT_ID: emulator.projectId,
    ...env,
  })
  try {
    const html = await (await fetch(`${portal.url}/`, { headers: { 'Accept-Language': 'en' } })).text()
    return { title: headingText(html), output: portal.output() }
  } finally {
    await portal.stop()
  }
}

function flagFile(content: string) {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'flags-')), 'flags.json')
  writeFileSync(file, content)
  return file
}

const SSO_ON = JSON.stringify({
  flags: { sso: { state: 'ENABLED', variants: { on: true, off: false }, defaultVariant: 'on' } },
})

describe('feature flags', () => {
  it('default to off', async () => {
    expect((await signInTitle({})).title).toBe('Sign In')
  })

  it('FLAG_SSO=true shows the single-sign-on title', async () => {
    expect((await signInTitle({ FLAG_SSO: 'true' })).title).toBe('Single Sign-On enabled')
  })

  it('a flagd file turning sso on does too, and FLAG_SSO=false still wins over it', async () => {
    const file = flagFile(SSO_ON)
    expect((await signInTitle({ FLAGS_FILE: file })).title).toBe('Single Sign-On enabled')
    expect((await signInTitle({ FLAGS_FILE: file, FLAG_SSO: 'false' })).title).toBe('Sign In')
  })

  it('a broken or missing flag file does not stop start-up and leaves the defaults', async () => {
    const broken = await signInTitle({ FLAGS_FILE: flagFile('{ not json') })
    expect(broken.title).toBe('Sign In')
    expect(broken.output).toContain('flags-provider-failed')
    expect((await signInTitle({ FLAGS_FILE: '/nonexistent/flags.json' })).title).toBe('Sign In')
  })
})
