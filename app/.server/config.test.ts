import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseConfig } from './config'
import { parseEmulatorHost } from './config-values'

describe('configuration', () => {
  it('has embedded defaults for local use', () => {
    const result = parseConfig({})
    expect(result.ok).toBe(true)
    if (!result.ok) return
    expect(result.config).toMatchObject({ port: 3000, host: '127.0.0.1', platform: 'local', trustProxy: 0 })
    expect(result.config.publicOrigin).toBe('http://localhost:3000')
    expect(result.config.identity.timeoutMs).toBe(30_000)
  })

  it('requires SESSION_SECRET outside local and test', () => {
    const result = parseConfig({ PLATFORM: 'production', IDENTITY_API_KEY: 'abc' })
    expect(result).toEqual({ ok: false, errors: [expect.stringContaining('SESSION_SECRET')] })
  })

  it('rejects weak session secrets in production', () => {
    const result = parseConfig({ PLATFORM: 'production', IDENTITY_API_KEY: 'abc', SESSION_SECRET: 'short' })
    expect(result.ok).toBe(false)
  })

  it('accepts rotated secrets, newest first', () => {
    const secret = 'x'.repeat(32)
    const result = parseConfig({ PLATFORM: 'staging', IDENTITY_API_KEY: 'k', SESSION_SECRET: `${secret}1, ${secret}2` })
    expect(result.ok && result.config.sessionSecrets).toEqual([`${secret}1`, `${secret}2`])
  })

  it('takes IDENTIFIER_HASH_SECRET as one secret of 32 characters or more outside local and test', () => {
    const secret = 'x'.repeat(32)
    const production = { PLATFORM: 'production', IDENTITY_API_KEY: 'k', SESSION_SECRET: secret }
    const pinned = parseConfig({ ...production, IDENTIFIER_HASH_SECRET: `${secret}1` })
    expect(pinned.ok && pinned.config.identifierHashSecret).toBe(`${secret}1`)
    const unset = parseConfig(production)
    expect(unset.ok && unset.config.identifierHashSecret).toBeNull()
    for (const wrong of ['short', `${secret}1,${secret}2`]) {
      expect(parseConfig({ ...production, IDENTIFIER_HASH_SECRET: wrong })).toEqual({
        ok: false,
        errors: [expect.stringMatching(/^IDENTIFIER_HASH_SECRET: /)],
      })
    }
  })

  it('rejects an API key with a colon as auth/invalid-api-key', () => {
    const result = parseConfig({ IDENTITY_API_KEY: 'a:b' })
    expect(result).toEqual({ ok: false, errors: [expect.stringContaining('auth/invalid-api-key')] })
  })

  it('lists one line per problem', () => {
    const result = parseConfig({ PORT: 'abc', PLATFORM: 'moon', TRUST_PROXY: '-1' })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.errors).toHaveLength(3)
    expect(result.errors.join('\n')).toMatch(/PORT[\s\S]*PLATFORM[\s\S]*TRUST_PROXY/)
  })

  it('takes TRUST_PROXY as a hop count or as address ranges and names, and refuses anything else', () => {
    const ranges = parseConfig({ TRUST_PROXY: '10.0.0.0/8, 2001:db8::/32,loopback, 192.0.2.7' })
    expect(ranges.ok && ranges.config.trustProxy).toEqual(['10.0.0.0/8', '2001:db8::/32', 'loopback', '192.0.2.7'])
    const hops = parseConfig({ TRUST_PROXY: '2' })
    expect(hops.ok && hops.config.trustProxy).toBe(2)
    for (const wrong of ['11', '10.0.0.0/33', 'example.com', '::1/129', '1.2.3.4/8/8', ' ']) {
      const result = parseConfig({ TRUST_PROXY: wrong })
      expect(result.ok, wrong).toBe(false)
      if (!result.ok) expect(result.errors).toEqual([expect.stringMatching(/^TRUST_PROXY: must be a number of proxies/)])
    }
  })

  it('reads the rate limits, the per-device one included, with their defaults', () => {
    const defaults = parseConfig({})
    expect(defaults.ok && defaults.config.rateLimits).toEqual({
      signInPerEmailIp: 5,
      signInPerIp: 30,
      signInPerEmail: 20,
      signInPerDevice: 10,
      resetPerEmail: 3,
      resetPerIp: 10,
      newPasswordPerIp: 10,
      mfaCodePerPending: 5,
      mfaCodePerIp: 30,
      mfaSmsPerPending: 4,
      mfaSmsPerIp: 20,
      mfaCodePerAccount: 10,
      mfaSmsPerAccount: 10,
      mfaSmsPerPhone: 5,
      linkPerEmail: 3,
      resetPerDevice: 3,
      enrolPerIp: 20,
      enrolPerAccount: 10,
      enrolSmsPerNumber: 3,
      emailChangePerAccount: 3,
      logoutPerIp: 30,
      passkeyStartPerIp: 120,
      passkeyChallenge: 1,
      signUpPerIp: 10,
    })
    expect(defaults.ok && defaults.config.rateLimitMemoryMaxKeys).toBe(100_000)
    expect(parseConfig({ RATE_LIMIT_MEMORY_MAX_KEYS: '10' })).toEqual({
      ok: false,
      errors: [expect.stringContaining('RATE_LIMIT_MEMORY_MAX_KEYS')],
    })
    const set = parseConfig({ RATE_LIMIT_SIGNIN_PER_DEVICE: '7' })
    expect(set.ok && set.config.rateLimits.signInPerDevice).toBe(7)
    expect(parseConfig({ RATE_LIMIT_SIGNIN_PER_DEVICE: '0' })).toEqual({
      ok: false,
      errors: [expect.stringContaining('RATE_LIMIT_SIGNIN_PER_DEVICE')],
    })
  })

  it('keeps a "Keep me signed in" session 14 days by default; SESSION_REMEMBER_MAX_AGE between 300 and 1209600, not under SESSION_MAX_AGE', () => {
    const defaults = parseConfig({})
    expect(defaults.ok && defaults.config.sessionRememberMaxAgeSeconds).toBe(1_209_600)
    const custom = parseConfig({ SESSION_REMEMBER_MAX_AGE: '86400' })
    expect(custom.ok && custom.config.sessionRememberMaxAgeSeconds).toBe(86_400)
    for (const wrong of ['299', '1209601', '3.5', 'two weeks']) {
      expect(parseConfig({ SESSION_MAX_AGE: '300', SESSION_REMEMBER_MAX_AGE: wrong })).toEqual({
        ok: false,
        errors: [expect.stringMatching(/^SESSION_REMEMBER_MAX_AGE: /)],
      })
    }
    expect(parseConfig({ SESSION_MAX_AGE: '7200', SESSION_REMEMBER_MAX_AGE: '3600' })).toEqual({
      ok: false,
      errors: ['SESSION_REMEMBER_MAX_AGE: must be at least SESSION_MAX_AGE (7200)'],
    })
  })

  it('treats an empty variable as unset', () => {
    expect(parseConfig({ PORT: '' }).ok).toBe(true)
  })

  it.each([
    ['127.0.0.1:9099', 'http://127.0.0.1:9099'],
    ['http://localhost:9099', 'http://localhost:9099'],
    ['https://auth.example.com', 'https://auth.example.com'],
    ['ftp://localhost:9099', null],
    ['javascript:alert(1)', null],
    ['http://localhost:9099/path', null],
  ])('reads the emulator host %s as %s', (input, expected) => {
    expect(parseEmulatorHost(input)).toBe(expected)
  })

  it('rejects an emulator URL that does not start with http or https', () => {
    const result = parseConfig({ FIREBASE_AUTH_EMULATOR_HOST: 'ftp://localhost:1' })
    expect(result).toEqual({ ok: false, errors: [expect.stringContaining('FIREBASE_AUTH_EMULATOR_HOST')] })
  })

  it('reads where sessions live: REDIS_URL, or Sentinel (REDIS_SENTINELS, REDIS_SENTINEL_MASTER), else SESSION_STORE_PATH', () => {
    const defaults = parseConfig({})
    expect(defaults.ok && defaults.config.redis).toEqual({ url: null, sentinels: null, sentinelMaster: null, password: null, tls: false })
    expect(defaults.ok && defaults.config.sessionStorePath).toBe('.data/sessions.sqlite')
    expect(defaults.ok && defaults.config.recentSignInSeconds).toBe(300)
    expect(defaults.ok && defaults.config.resendWaitSeconds).toBe(30)
    const sentinel = parseConfig({
      REDIS_SENTINELS: 'sentinel-a:26379, 10.0.0.7:26380,[::1]:26381',
      REDIS_SENTINEL_MASTER: 'portal',
      REDIS_PASSWORD: 's3cret',
      REDIS_TLS: 'true',
    })
    expect(sentinel.ok && sentinel.config.redis).toEqual({
      url: null,
      sentinels: [
        { host: 'sentinel-a', port: 26379 },
        { host: '10.0.0.7', port: 26380 },
        { host: '::1', port: 26381 },
      ],
      sentinelMaster: 'portal',
      password: 's3cret',
      tls: true,
    })
  })

  it.each([
    [{ REDIS_SENTINELS: 'sentinel-a:26379' }, 'REDIS_SENTINEL_MASTER'],
    [{ REDIS_SENTINELS: 'sentinel-a', REDIS_SENTINEL_MASTER: 'm' }, 'REDIS_SENTINELS'],
    [{ REDIS_SENTINELS: 'a:1,b:99999', REDIS_SENTINEL_MASTER: 'm' }, 'REDIS_SENTINELS'],
    [{ REDIS_SENTINELS: 'a:1', REDIS_SENTINEL_MASTER: 'm', REDIS_URL: 'redis://r:6379' }, 'REDIS_SENTINELS'],
    [{ RECENT_SIGN_IN_SECONDS: '301' }, 'RECENT_SIGN_IN_SECONDS'],
    [{ RESEND_WAIT_SECONDS: '0' }, 'RESEND_WAIT_SECONDS'],
    [{ SESSION_MAX_PER_ACCOUNT: '0' }, 'SESSION_MAX_PER_ACCOUNT'],
  ])('refuses %j, naming %s', (env, name) => {
    const result = parseConfig(env)
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.errors.join('\n')).toContain(`${name}:`)
  })

  it('reads the remote flag service and its headers (FLAGS_OFREP_URL, FLAGS_OFREP_HEADERS)', () => {
    const none = parseConfig({})
    expect(none.ok && none.config.flagsRemote).toBeNull()
    const bare = parseConfig({ FLAGS_OFREP_URL: 'https://flags.example.com/' })
    expect(bare.ok && bare.config.flagsRemote).toEqual({ url: 'https://flags.example.com', headers: [], maxAgeMs: 30_000 })
    const withHeaders = parseConfig({
      FLAGS_OFREP_URL: 'http://127.0.0.1:8016/base',
      FLAGS_OFREP_HEADERS: 'Authorization: Bearer xyz:1=, X-Env:prod ,',
      FLAGS_OFREP_MAX_AGE: '5',
    })
    expect(withHeaders.ok && withHeaders.config.flagsRemote).toEqual({
      url: 'http://127.0.0.1:8016/base',
      headers: [
        ['Authorization', 'Bearer xyz:1='],
        ['X-Env', 'prod'],
      ],
      maxAgeMs: 5_000,
    })
  })

  it.each(['0', '3601', '1.5', 'soon'])('rejects FLAGS_OFREP_MAX_AGE=%s', (value) => {
    const result = parseConfig({ FLAGS_OFREP_URL: 'https://flags.example.com', FLAGS_OFREP_MAX_AGE: value })
    expect(result).toEqual({ ok: false, errors: [expect.stringMatching(/^FLAGS_OFREP_MAX_AGE: /)] })
  })

  it.each([
    ['Authorization Bearer s3cret-value'],
    [': s3cret-value'],
    ['Bad Name: s3cret-value'],
    ['Authorization:'],
    ['Authorization: s3cret\nvalue'],
    ['X-Ok: 1, s3cret-value'],
  ])('rejects FLAGS_OFREP_HEADERS=%j in one line that does not repeat the value', (value) => {
    const result = parseConfig({ FLAGS_OFREP_URL: 'https://flags.example.com', FLAGS_OFREP_HEADERS: value })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.errors).toHaveLength(1)
    expect(result.errors[0]).toMatch(/^FLAGS_OFREP_HEADERS: entry \d is not 'Name: value'/)
    expect(result.errors[0]).not.toContain('s3cret')
    expect(result.errors[0]).not.toContain('\n')
  })

  it('rejects a FLAGS_OFREP_URL that is not http(s) or holds credentials', () => {
    for (const url of ['ftp://flags.example.com', 'not a url', 'https://user:s3cret@flags.example.com']) {
      const result = parseConfig({ FLAGS_OFREP_URL: url })
      expect(result).toEqual({ ok: false, errors: [expect.stringMatching(/^FLAGS_OFREP_URL: /)] })
      expect(JSON.stringify(result)).not.toContain('s3cret')
    }
  })

  it('requires an https FLAGS_OFREP_URL outside local and test: its answers choose what every visitor gets', () => {
    const base = { IDENTITY_API_KEY: 'k', SESSION_SECRET: 'x'.repeat(32), FLAGS_OFREP_URL: 'http://flags.internal:8016' }
    for (const platform of ['development', 'staging', 'isoprod', 'production']) {
      expect(parseConfig({ ...base, PLATFORM: platform })).toEqual({
        ok: false,
        errors: [
          `FLAGS_OFREP_URL: must be https when PLATFORM is ${platform}, unless it is on this host (localhost, 127.0.0.0/8, [::1])`,
        ],
      })
      expect(parseConfig({ ...base, PLATFORM: platform, FLAGS_OFREP_URL: 'https://flags.internal:8016' }).ok).toBe(true)
    }
    for (const platform of ['local', 'test']) expect(parseConfig({ ...base, PLATFORM: platform }).ok).toBe(true)
  })

  it('takes a flag sidecar over plain http on this host (flagd in the same pod), on every platform', () => {
    const base = { IDENTITY_API_KEY: 'k', SESSION_SECRET: 'x'.repeat(32), PLATFORM: 'production' }
    for (const url of ['http://localhost:8016', 'http://127.0.0.1:8016/', 'http://127.8.9.10:8016', 'http://[::1]:8016']) {
      const result = parseConfig({ ...base, FLAGS_OFREP_URL: url })
      expect(result.ok && result.config.flagsRemote?.url, url).toBe(url.replace(/\/$/, ''))
    }
    // Names that only look local, and addresses of other hosts, still need https.
    for (const url of [
      'http://localhost.example.com:8016',
      'http://127.0.0.1.nip.io:8016',
      'http://10.0.0.5:8016',
      'http://[::ffff:10.0.0.5]:8016',
      'http://0.0.0.0:8016',
    ]) {
      expect(parseConfig({ ...base, FLAGS_OFREP_URL: url }).ok, url).toBe(false)
    }
  })
  it('loads reCAPTCHA from Google by default; RECAPTCHA_SCRIPT_URL names another (recaptcha.net)', () => {
    const defaults = parseConfig({})
    expect(defaults.ok && defaults.config.recaptchaScriptUrl).toBe('https://www.google.com/recaptcha/enterprise.js')
    const net = parseConfig({ RECAPTCHA_SCRIPT_URL: 'https://www.recaptcha.net/recaptcha/enterprise.js' })
    expect(net.ok && net.config.recaptchaScriptUrl).toBe('https://www.recaptcha.net/recaptcha/enterprise.js')
  })

  it('rejects a RECAPTCHA_SCRIPT_URL that is not a plain https URL (http only for local and test)', () => {
    const production = { PLATFORM: 'production', IDENTITY_API_KEY: 'k', SESSION_SECRET: 'x'.repeat(32) }
    for (const url of ['not a url', 'ftp://www.google.com/recaptcha/enterprise.js', 'https://www.google.com/recaptcha/enterprise.js?render=explicit']) {
      expect(parseConfig({ RECAPTCHA_SCRIPT_URL: url })).toEqual({ ok: false, errors: [expect.stringMatching(/^RECAPTCHA_SCRIPT_URL: /)] })
    }
    expect(parseConfig({ ...production, RECAPTCHA_SCRIPT_URL: 'http://www.google.com/recaptcha/enterprise.js' })).toEqual({
      ok: false,
      errors: [expect.stringMatching(/^RECAPTCHA_SCRIPT_URL: /)],
    })
    expect(parseConfig({ PLATFORM: 'test', RECAPTCHA_SCRIPT_URL: 'http://127.0.0.1:9/recaptcha/enterprise.js' }).ok).toBe(true)
  })
})

describe('the brand settings', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'brand-config-'))
  const file = (name: string, content: string | Buffer) => {
    const at = path.join(dir, name)
    writeFileSync(at, content)
    return at
  }
  const svg = file('logo.svg', '<?xml version="1.0"?>\n<!-- Acme -->\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 40"><rect width="120" height="40"/></svg>')
  // A PNG's signature and IHDR: 64 × 32.
  const png = file('logo.png', Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.from([0, 0, 0, 64, 0, 0, 0, 32]), Buffer.alloc(20)]))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  const errorsOf = (env: Record<string, string>) => {
    const result = parseConfig(env)
    return result.ok ? [] : result.errors
  }

  it('takes a name for every language, and per language', () => {
    const both = parseConfig({ BRAND_NAME: '  Acme ' })
    expect(both.ok && both.config.brand.name).toEqual({ fr: 'Acme', en: 'Acme' })
    const each = parseConfig({ BRAND_NAME: 'Acme', BRAND_NAME_FR: 'Acmé', BRAND_NAME_EN: 'Acme Inc.' })
    expect(each.ok && each.config.brand.name).toEqual({ fr: 'Acmé', en: 'Acme Inc.' })
    const french = parseConfig({ BRAND_NAME_FR: 'Acmé' })
    expect(french.ok && french.config.brand.name).toEqual({ fr: 'Acmé', en: null })
    const none = parseConfig({})
    expect(none.ok && none.config.brand).toEqual({ name: { fr: null, en: null }, logo: null, logoDark: null, accent: null })
    expect(errorsOf({ BRAND_NAME: 'A'.repeat(61) })).toEqual([expect.stringMatching(/^BRAND_NAME: /)])
    expect(errorsOf({ BRAND_NAME_EN: 'Acme\nInc.' })).toEqual(['BRAND_NAME_EN: must be one line of plain text'])
  })

  it('takes an accent whose text reads at 4.5:1, and derives the dark scheme’s', () => {
    const result = parseConfig({ BRAND_ACCENT: '#7A1FA2' })
    expect(result.ok && result.config.brand.accent).toEqual({ light: '#7a1fa2', dark: expect.stringMatching(/^#[0-9a-f]{6}$/) })
    expect(parseConfig({ BRAND_ACCENT: '#03c' }).ok).toBe(true)
  })

  it('takes the dark scheme’s accent as given when it reads at 4.5:1 on the dark surfaces', () => {
    const result = parseConfig({ BRAND_ACCENT: '#7a1fa2', BRAND_ACCENT_DARK: '#D9A6F0' })
    expect(result.ok && result.config.brand.accent).toEqual({ light: '#7a1fa2', dark: '#d9a6f0' })
    expect(errorsOf({ BRAND_ACCENT: '#7a1fa2', BRAND_ACCENT_DARK: '#7a1fa2' })).toEqual([
      'BRAND_ACCENT_DARK: #7a1fa2 gives 1.9:1 on the dark card #18202b (needs 4.5:1)',
    ])
    expect(errorsOf({ BRAND_ACCENT: '#7a1fa2', BRAND_ACCENT_DARK: 'lilac' })).toEqual([
      'BRAND_ACCENT_DARK: lilac is not a colour this setting takes: #rgb or #rrggbb (e.g. #d9a6f0)',
    ])
    expect(errorsOf({ BRAND_ACCENT_DARK: '#d9a6f0' })).toEqual([
      'BRAND_ACCENT_DARK: needs BRAND_ACCENT, the accent of the light scheme',
    ])
  })

  it('refuses a low-contrast or unreadable accent with one line saying why', () => {
    expect(errorsOf({ BRAND_ACCENT: '#ffff00' })).toEqual(['BRAND_ACCENT: #ffff00 gives 1.0:1 on the page background #f4f6fb (needs 4.5:1)'])
    // 4.5:1 on white, but not on the page around the card, where the footer's links are.
    expect(errorsOf({ BRAND_ACCENT: '#1a73e8' })).toEqual(['BRAND_ACCENT: #1a73e8 gives 4.1:1 on the page background #f4f6fb (needs 4.5:1)'])
    expect(errorsOf({ BRAND_ACCENT: 'purple' })).toEqual(['BRAND_ACCENT: purple is not a colour this setting takes: #rgb or #rrggbb (e.g. #7a1fa2)'])
  })

  it('reads an SVG or PNG logo with its proportions', () => {
    const result = parseConfig({ BRAND_LOGO: svg, BRAND_LOGO_DARK: png })
    expect(result.ok && result.config.brand.logo).toMatchObject({ type: 'image/svg+xml', width: 120, height: 40 })
    expect(result.ok && result.config.brand.logoDark).toMatchObject({ type: 'image/png', width: 64, height: 32 })
  })

  it('refuses a missing, unreadable, oversized, or other logo file with one line naming the setting', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ BRAND_LOGO: path.join(dir, 'missing.svg') }, `BRAND_LOGO: cannot read ${path.join(dir, 'missing.svg')} (ENOENT)`],
      [{ BRAND_LOGO: dir }, `BRAND_LOGO: cannot read ${dir} (EISDIR)`],
      [{ BRAND_LOGO: file('big.svg', `<svg viewBox="0 0 1 1">${' '.repeat(21 * 1024)}</svg>`) }, `BRAND_LOGO: ${path.join(dir, 'big.svg')} is 22 KB, over the 20 KB a logo may weigh`],
      [{ BRAND_LOGO: file('logo.jpg', Buffer.from('ffd8ffe000104a464946', 'hex')) }, `BRAND_LOGO: ${path.join(dir, 'logo.jpg')} is neither an SVG nor a PNG file`],
      [{ BRAND_LOGO: file('page.html', '<html><svg viewBox="0 0 1 1"></svg></html>') }, `BRAND_LOGO: ${path.join(dir, 'page.html')} is neither an SVG nor a PNG file`],
      [{ BRAND_LOGO: file('sizeless.svg', '<svg xmlns="http://www.w3.org/2000/svg"></svg>') }, `BRAND_LOGO: ${path.join(dir, 'sizeless.svg')}: its <svg> needs a viewBox or a width and height, for its proportions`],
      [{ BRAND_LOGO: svg, BRAND_LOGO_DARK: path.join(dir, 'none.png') }, `BRAND_LOGO_DARK: cannot read ${path.join(dir, 'none.png')} (ENOENT)`],
      [{ BRAND_LOGO_DARK: svg }, 'BRAND_LOGO_DARK: needs BRAND_LOGO, the logo of the light scheme'],
    ]
    for (const [env, line] of cases) expect(errorsOf(env)).toEqual([line])
  })
})
