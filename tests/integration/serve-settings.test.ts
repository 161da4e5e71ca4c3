import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'

/** `npm run serve` (build/http/main.js) as a newcomer meets it: with no settings, or odd ones. */
function serve(env: Record<string, string>, until: RegExp) {
  const child = spawn(process.execPath, ['build/http/main.js'], {
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const seen = (chunk: Buffer) => {
      output += chunk.toString()
      if (until.test(output)) child.kill('SIGTERM')
    }
    child.stdout.on('data', seen)
    child.stderr.on('data', seen)
    child.once('exit', (code) => resolve({ code, output }))
  })
}

describe('npm run serve', () => {
  it('with no settings refuses to start, with one line saying the minimum', async () => {
    const { code, output } = await serve({}, /$^/)
    expect(code).toBe(1)
    expect(output.trim()).toBe(
      'No identity service: set FIREBASE_AUTH_EMULATOR_HOST to try the portal against an emulator (npm start does this for you), or IDENTITY_API_KEY and FIREBASE_PROJECT_ID for a project.',
    )
  })

  it('says which scheme or path of PUBLIC_URL it refuses', async () => {
    const ftp = await serve({ PUBLIC_URL: 'ftp://login.example.com' }, /$^/)
    expect(ftp.output.trim()).toBe('Invalid configuration: PUBLIC_URL: must start with https:// (or http://), not ftp://')
    const path = await serve({ PUBLIC_URL: 'https://example.com/login' }, /$^/)
    expect(path.output).toContain('PUBLIC_URL: must be an origin only, such as https://example.com')
    const production = { PLATFORM: 'production', IDENTITY_API_KEY: 'k', SESSION_SECRET: 'x'.repeat(32) }
    const http = await serve({ ...production, PUBLIC_URL: 'http://login.example.com' }, /$^/)
    expect(http.output).toContain('PUBLIC_URL: must be https when PLATFORM is production')
  })

  it('warns of a short SESSION_SECRET under PLATFORM=local', async () => {
    const { output } = await serve({ SESSION_SECRET: 'short', FIREBASE_AUTH_EMULATOR_HOST: '127.0.0.1:9' }, /Warning: .*\n/)
    expect(output).toContain('Warning: SESSION_SECRET: shorter than 32 characters, accepted only because PLATFORM is local')
  })
})
