import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { REDIRECT_MAX_LENGTH, type RedirectPolicy, allowedHostSources, checkRedirect } from './redirect'

const PUBLIC = 'https://portal.example.com'
const policy: RedirectPolicy = {
  publicOrigin: PUBLIC,
  allowedHosts: ['good.com', 'App.Example.com', 'localhost', '*.wild.com'],
  allowedOrigins: ['https://partner.example.org:8443/', 'not a url', 'javascript:alert(1)'],
  allowLoopbackHosts: true,
}

/** Every origin a redirect may land on under `policy`. */
function isSafeOrigin(origin: string): boolean {
  return (
    [PUBLIC, 'https://good.com', 'https://app.example.com', 'https://partner.example.org:8443'].includes(origin) ||
    /^https?:\/\/localhost(?::\d+)?$/.test(origin)
  )
}

function expectSafe(raw: string | null, p: RedirectPolicy = policy) {
  const result = checkRedirect(raw, p)
  if (result.kind !== 'ok') return result
  const url = new URL(result.url)
  expect(url.href, 'returns the re-serialised URL').toBe(result.url)
  expect(isSafeOrigin(url.origin), `${JSON.stringify(raw)} → ${result.url}`).toBe(true)
  expect(url.username + url.password).toBe('')
  return result
}

const invalid = { kind: 'invalid' }
const ok = (url: string) => ({ kind: 'ok', url })

// Open-redirect payloads: each must be refused or land on publicOrigin / an allowed origin.
const corpus: string[] = [
  // Protocol-relative, slashes and backslashes
  '//evil.com',
  '///evil.com',
  '////evil.com',
  '/\\evil.com',
  '\\\\evil.com',
  '\\/evil.com',
  '/\\/evil.com',
  '//\\evil.com',
  '//good.com',
  '//good.com/path',
  '/%2F%2Fevil.com',
  '/%2f/evil.com',
  '/%5Cevil.com',
  '/%5C%5Cevil.com',
  '/.//evil.com',
  '/..//evil.com',
  '/%2e//evil.com',
  '/%2e%2e//evil.com',
  '/a/..//evil.com',
  '%2F%2Fevil.com',
  '%5C%5Cevil.com',
  // Whitespace, controls and invisible characters
  '/\t/evil.com',
  '/\n/evil.com',
  '/\r/evil.com',
  '/\t\t/evil.com',
  '//evil%0a.com',
  '//evil\n.com',
  '\t//evil.com',
  ' //evil.com',
  '//evil.com ',
  '/ /evil.com',
  '/%09/evil.com',
  '/%0d%0aLocation:%20https://evil.com',
  '\u0000//evil.com',
  '/\u0000/evil.com',
  '\u007f//evil.com',
  '\u0085//evil.com',
  '\u200b//evil.com',
  '/\u200b/evil.com',
  '\u202e//moc.live',
  '\u3000//evil.com',
  '\u00a0//evil.com',
  '\ufeff//evil.com',
  '/\u2028/evil.com',
  'https://good.com\t.evil.com',
  'https://goo\u200bd.com/',
  'https://good.com\u00ad/',
  // Dangerous or unexpected schemes
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  ' javascript:alert(1)',
  'java\tscript:alert(1)',
  'java\nscript:alert(1)',
  'java%09script:alert(1)',
  'jav&#x09;ascript:alert(1)',
  'javascript://good.com/%0aalert(1)',
  'javascript:%61lert(1)',
  'data:text/html,<script>alert(1)</script>',
  'DATA:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
  'vbscript:msgbox(1)',
  'file:///etc/passwd',
  'FILE://good.com/etc/passwd',
  'ftp://good.com/',
  'ws://good.com/',
  'blob:https://good.com/x',
  'mailto:a@good.com',
  // Malformed http(s) that WHATWG would still resolve to a host
  'https:evil.com',
  'https:/evil.com',
  'https:\\\\evil.com',
  'https:///evil.com',
  'https:////evil.com',
  'http:evil.com',
  'HTTPS:evil.com',
  'https:good.com',
  'https:/good.com',
  // Userinfo
  'https://good.com@evil.com',
  'https://good.com:pass@evil.com',
  'https://evil.com#@good.com',
  'https://evil.com?@good.com',
  'https://evil.com\\@good.com',
  'https://evil.com%40good.com',
  'https://good.com%40evil.com',
  'https://user@good.com/',
  'https://:@good.com/',
  'https://@good.com',
  'https://portal.example.com@evil.com/',
  // IP forms
  'http://2130706433',
  'http://0x7f.1',
  'http://0x7f000001',
  'http://017700000001',
  'http://0177.0.0.1',
  'http://127.1',
  'http://127.0.0.1/',
  'http://[::ffff:127.0.0.1]',
  'http://[::ffff:7f00:1]',
  'http://[::1]/',
  'http://[::]/',
  'http://0/',
  'https://10.0.0.1/',
  'https://169.254.169.254/latest/meta-data',
  // Look-alike hosts
  'https://good.com.evil.com',
  'https://evilgood.com',
  'https://good.com.',
  'https://GOOD.com./',
  'https://gооd.com', // Cyrillic o
  'https://xn--gd-fmca.com',
  'https://good。com', // ideographic full stop
  'https://good．com', // fullwidth full stop
  'https://good%E3%80%82com',
  'https://good%2ecom',
  'https://ｇｏｏｄ.com',
  'https://good.co',
  'https://evil.com/good.com',
  'https://evil.com/?next=https://good.com',
  'https://evil.com\\.good.com',
  'https://sub.wild.com/',
  'https://*.wild.com/',
  'https://portal.example.com.evil.com/',
  // Right host, wrong scheme or port
  'http://good.com/',
  'http://app.example.com/',
  'https://good.com:8443/',
  'https://good.com:443/',
  'https://partner.example.org/',
  'http://partner.example.org:8443/',
  'http://portal.example.com/',
  'https://portal.example.com:444/',
  // Not a path, not absolute
  'dashboard',
  './dashboard',
  '../evil',
  '?next=//evil.com',
  '#//evil.com',
  'evil.com',
  'good.com/path',
  // Too long
  '/' + 'a'.repeat(REDIRECT_MAX_LENGTH),
  'https://good.com/' + 'a'.repeat(REDIRECT_MAX_LENGTH),
]

describe('checkRedirect: open-redirect corpus', () => {
  it('has a broad corpus', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(60)
  })

  it.each(corpus.map((raw) => [JSON.stringify(raw).slice(0, 80), raw]))('%s', (_label, raw) => {
    expectSafe(raw)
  })

  it.each([
    '//evil.com',
    '//good.com',
    '/\\evil.com',
    '\\\\evil.com',
    '/\t/evil.com',
    'java\tscript:alert(1)',
    'https:evil.com',
    'https:/good.com',
    'https:///good.com',
    'https://good.com@evil.com',
    'https://user@good.com/',
    'https://evil.com#@good.com',
    'http://0x7f.1',
    'http://2130706433',
    'http://[::ffff:127.0.0.1]',
    'https://good.com.',
    'https://gооd.com',
    'https://good。com',
    'https://good%E3%80%82com',
    'https://good:443/',
    'https://sub.wild.com/',
    'https://*.wild.com/',
    'http://good.com/',
    'https://good.com:8443/',
    'dashboard',
    'javascript:alert(1)',
    'data:text/html,x',
  ])('refuses %j outright', (raw) => {
    expect(checkRedirect(raw, policy)).toEqual(invalid)
  })

  it('keeps encoded and dot-segment tricks on our origin, as an absolute URL', () => {
    expect(checkRedirect('/%2F%2Fevil.com', policy)).toEqual(ok(`${PUBLIC}/%2F%2Fevil.com`))
    // The path becomes '//evil.com': harmless only because we return an absolute URL.
    expect(checkRedirect('/.//evil.com', policy)).toEqual(ok(`${PUBLIC}//evil.com`))
    expect(checkRedirect('https://evil.com?@good.com', policy)).toEqual(invalid)
    expect(checkRedirect('https://good.com?@evil.com', policy)).toEqual(ok('https://good.com/?@evil.com'))
  })
})

describe('checkRedirect: accepted', () => {
  it.each([
    ['/dashboard?x=1#y', `${PUBLIC}/dashboard?x=1#y`],
    ['/', `${PUBLIC}/`],
    ['/a/../b?q=%20', `${PUBLIC}/b?q=%20`],
    ['/caf\u00e9', `${PUBLIC}/caf%C3%A9`],
    ['https://portal.example.com', `${PUBLIC}/`],
    ['https://portal.example.com/x?y', `${PUBLIC}/x?y`],
    ['https://app.example.com/path', 'https://app.example.com/path'],
    ['HTTPS://APP.EXAMPLE.COM/Path', 'https://app.example.com/Path'],
    ['https://good.com/cb?code=1#state', 'https://good.com/cb?code=1#state'],
    ['https://partner.example.org:8443/cb', 'https://partner.example.org:8443/cb'],
    ['http://localhost:5173/', 'http://localhost:5173/'],
    ['http://LOCALHOST:3000/x', 'http://localhost:3000/x'],
    ['https://localhost/', 'https://localhost/'],
    ['https://localhost:8443/cb', 'https://localhost:8443/cb'],
  ])('%s', (raw, url) => {
    expect(expectSafe(raw)).toEqual(ok(url))
  })

  it('accepts the documented cases with minimal settings', () => {
    const hosts = (allowedHosts: string[]) => ({
      publicOrigin: PUBLIC,
      allowedHosts,
      allowedOrigins: [],
      allowLoopbackHosts: true,
    })
    expect(checkRedirect('https://app.example.com/path', hosts(['app.example.com']))).toEqual(
      ok('https://app.example.com/path'),
    )
    expect(checkRedirect('http://localhost:5173/', hosts(['localhost']))).toEqual(ok('http://localhost:5173/'))
    expect(checkRedirect('http://app.example.com/', hosts(['app.example.com']))).toEqual(invalid)
  })

  it('takes allowedHosts as a Set, case-insensitively', () => {
    const p = { publicOrigin: PUBLIC, allowedHosts: new Set([' App.Example.COM ']), allowedOrigins: [] }
    expect(checkRedirect('https://app.example.com/', p)).toEqual(ok('https://app.example.com/'))
    expect(checkRedirect('https://evil.com/', p)).toEqual(invalid)
  })

  it('accepts loopback IPs only when listed, over http, on the default port', () => {
    const p = {
      publicOrigin: PUBLIC,
      allowedHosts: ['127.0.0.1', '[::1]', '10.0.0.1'],
      allowedOrigins: [],
      allowLoopbackHosts: true,
    }
    expect(checkRedirect('http://127.0.0.1/x', p)).toEqual(ok('http://127.0.0.1/x'))
    expect(checkRedirect('http://[::1]/', p)).toEqual(ok('http://[::1]/'))
    expect(checkRedirect('http://127.0.0.1:8080/', p)).toEqual(invalid)
    expect(checkRedirect('http://2130706433/', p)).toEqual(invalid)
    expect(checkRedirect('https://10.0.0.1/', p)).toEqual(invalid)
    expect(checkRedirect('http://127.0.0.1/', policy)).toEqual(invalid)
  })

  it('resolves paths against a local http publicOrigin', () => {
    const p = { publicOrigin: 'http://localhost:3000', allowedHosts: [], allowedOrigins: [] }
    expect(checkRedirect('/x', p)).toEqual(ok('http://localhost:3000/x'))
    expect(checkRedirect('http://localhost:3000/y', p)).toEqual(ok('http://localhost:3000/y'))
    expect(checkRedirect('http://localhost:3001/y', p)).toEqual(invalid)
  })

  it('never accepts an absolute URL with an unparseable publicOrigin', () => {
    expect(checkRedirect('/x', { publicOrigin: 'nonsense', allowedHosts: [], allowedOrigins: [] })).toEqual(invalid)
  })
})

describe('checkRedirect: none, missing, length', () => {
  it('tells no parameter from an empty one', () => {
    expect(checkRedirect(null, policy)).toEqual({ kind: 'none' })
    expect(checkRedirect('', policy)).toEqual({ kind: 'missing' })
    expect(checkRedirect('   ', policy)).toEqual({ kind: 'missing' })
    expect(checkRedirect('\t\n', policy)).toEqual({ kind: 'missing' })
  })

  it('refuses leading or trailing whitespace around a value', () => {
    expect(checkRedirect(' /x', policy)).toEqual(invalid)
    expect(checkRedirect('/x\n', policy)).toEqual(invalid)
  })

  it(`accepts up to ${REDIRECT_MAX_LENGTH} characters`, () => {
    const path = (n: number) => '/' + 'a'.repeat(n - 1)
    expect(checkRedirect(path(REDIRECT_MAX_LENGTH), policy).kind).toBe('ok')
    expect(checkRedirect(path(REDIRECT_MAX_LENGTH + 1), policy)).toEqual(invalid)
  })
})

describe('checkRedirect: properties', () => {
  const fragment = fc.constantFrom(
    '/',
    '//',
    '\\',
    '.',
    '..',
    '@',
    ':',
    '#',
    '?',
    '%2F',
    '%5C',
    '%2e',
    '%40',
    '%0a',
    '\t',
    '\n',
    ' ',
    '\u200b',
    'https:',
    'http:',
    'HTTPS://',
    'javascript:',
    'data:',
    'good.com',
    'evil.com',
    'app.example.com',
    'portal.example.com',
    'partner.example.org',
    'localhost',
    ':8443',
    ':5173',
    ':443',
    '127.0.0.1',
    '0x7f',
    '[::1]',
    '[',
    ']',
    '。',
    'о',
    'xn--',
    '*.',
    'wild.com',
    'user',
    'a',
  )
  const tricky = fc.array(fragment, { maxLength: 12 }).map((parts) => parts.join(''))
  const anything = fc.oneof(
    tricky,
    fc.string({ unit: 'binary', maxLength: 80 }),
    fc.webUrl({ withQueryParameters: true, withFragments: true }),
    fc.tuple(tricky, fc.webUrl()).map(([a, b]) => a + b),
    fc.tuple(fc.constantFrom('https://', 'http://', '/', '//'), tricky).map(([a, b]) => a + b),
  )

  it('never returns ok outside publicOrigin and the allowed origins', () => {
    fc.assert(
      fc.property(anything, (raw) => {
        expectSafe(raw)
      }),
      { numRuns: 5000 },
    )
  })

  it('accepts plain paths on our origin', () => {
    fc.assert(
      fc.property(fc.webPath(), (path) => {
        fc.pre(path.startsWith('/') && !path.startsWith('//'))
        const result = checkRedirect(path, policy)
        expect(result).toEqual(ok(new URL(path, PUBLIC).href))
      }),
    )
  })
})

describe('allowedHostSources: the CSP form-action sources for the allowed hosts', () => {
  it('lists exactly what the policy accepts, and nothing that could add a directive', () => {
    const hosts = ['App.Example.com', 'localhost', '127.0.0.1', '*.wild.com', '10.0.0.1', 'evil.com; script-src *', ' spaced.com ']
    expect(allowedHostSources(hosts, { allowLoopbackHosts: true })).toEqual([
      'https://app.example.com',
      'http://localhost:*',
      'https://localhost:*',
      'http://127.0.0.1',
      'https://127.0.0.1',
      'https://spaced.com',
    ])
  })

  it('covers every host redirect checkRedirect accepts', () => {
    const sources = allowedHostSources(policy.allowedHosts, { allowLoopbackHosts: true })
    for (const raw of ['https://good.com/x', 'https://app.example.com/', 'http://localhost:9/after', 'https://localhost/']) {
      const check = checkRedirect(raw, policy)
      expect(check.kind, raw).toBe('ok')
      const url = new URL(raw)
      const source = url.hostname === 'localhost' ? `${url.protocol}//localhost:*` : url.origin
      expect(sources, raw).toContain(source)
    }
  })
})

// Every Firebase project lists localhost in its authorizedDomains: outside development platforms
// (PLATFORM local, test, development) loopback entries there are ignored (ADR 016).
describe('loopback hosts from authorizedDomains outside development', () => {
  const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]', 'LocalHost', 'app.localhost']
  const production: RedirectPolicy = {
    publicOrigin: PUBLIC,
    allowedHosts: ['good.com', ...LOOPBACK_HOSTS],
    allowedOrigins: [],
  }

  it.each([
    'http://localhost:4444/x',
    'https://localhost/',
    'http://localhost/',
    'https://localhost:4444/sso/callback',
    'http://127.0.0.1/x',
    'https://127.0.0.1/',
    'http://[::1]/',
    'https://app.localhost/',
  ])('refuses %s by default (production)', (raw) => {
    expect(checkRedirect(raw, production)).toEqual(invalid)
    expect(checkRedirect(raw, { ...production, allowLoopbackHosts: false })).toEqual(invalid)
  })

  it('still accepts the other authorized domains and local paths', () => {
    expect(checkRedirect('https://good.com/x', production)).toEqual(ok('https://good.com/x'))
    expect(checkRedirect('/x', production)).toEqual(ok(`${PUBLIC}/x`))
  })

  it('accepts them on development platforms', () => {
    const development = { ...production, allowLoopbackHosts: true }
    expect(checkRedirect('http://localhost:4444/x', development)).toEqual(ok('http://localhost:4444/x'))
    expect(checkRedirect('http://127.0.0.1/x', development)).toEqual(ok('http://127.0.0.1/x'))
    expect(checkRedirect('http://[::1]/', development)).toEqual(ok('http://[::1]/'))
  })

  it('accepts a loopback origin REDIRECT_ALLOWED_ORIGINS names explicitly, and only that one', () => {
    const named = { ...production, allowedOrigins: ['http://localhost:4444'] }
    expect(checkRedirect('http://localhost:4444/x', named)).toEqual(ok('http://localhost:4444/x'))
    expect(checkRedirect('http://localhost:4445/x', named)).toEqual(invalid)
    expect(checkRedirect('https://localhost:4444/x', named)).toEqual(invalid)
  })

  it('accepts a loopback publicOrigin (a portal run on localhost)', () => {
    const p = { ...production, publicOrigin: 'http://localhost:3000' }
    expect(checkRedirect('http://localhost:3000/y', p)).toEqual(ok('http://localhost:3000/y'))
    expect(checkRedirect('http://localhost:3001/y', p)).toEqual(invalid)
  })

  it('leaves them out of the CSP form-action sources', () => {
    expect(allowedHostSources(['good.com', ...LOOPBACK_HOSTS])).toEqual(['https://good.com'])
    expect(allowedHostSources(['good.com', ...LOOPBACK_HOSTS], { allowLoopbackHosts: false })).toEqual([
      'https://good.com',
    ])
    expect(allowedHostSources(['localhost'], { allowLoopbackHosts: true })).toEqual([
      'http://localhost:*',
      'https://localhost:*',
    ])
  })

  it('never returns ok on a loopback host unless allowed origins name it (property)', () => {
    const raw = fc.tuple(
      fc.constantFrom('http://', 'https://', 'HTTP://'),
      fc.constantFrom(...LOOPBACK_HOSTS, '127.0.0.1', '[::1]', 'localhost.'),
      fc.constantFrom('', ':4444', ':80', ':443', ':3000'),
      fc.constantFrom('', '/', '/x?y=1'),
    )
    fc.assert(
      fc.property(raw, ([scheme, host, port, path]) => {
        expect(checkRedirect(scheme + host + port + path, production).kind).not.toBe('ok')
      }),
    )
  })
})
