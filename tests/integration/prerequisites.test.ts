import { spawn } from 'node:child_process'
import { expect, it } from 'vitest'

/** A machine without the Debian packages: `npm test` says so at once, with the line that installs them. */
it('stops within 5 s naming every missing package and the apt-get line', async () => {
  const started = Date.now()
  const child = spawn(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'scripts/test.ts'], {
    env: { ...process.env, PREREQUISITES_ROOT: '/nonexistent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (c: Buffer) => (output += c.toString()))
  child.stderr.on('data', (c: Buffer) => (output += c.toString()))
  const code = await new Promise((resolve) => child.once('exit', resolve))
  expect(Date.now() - started).toBeLessThan(5_000)
  expect(code).toBe(1)
  const packages = 'chromium chromium-headless-shell redis-server redis-sentinel nginx default-jre-headless lynx w3m firefox-esr'
  expect(output).toContain(`sudo apt-get install -y --no-install-recommends ${packages}`)
  expect(output).toContain('npm test -- --install-prerequisites')
  expect(output.trim().split('\n').at(-1)).toBe('0 passed, 1 failed')
  expect(output).not.toContain('typecheck')
})
