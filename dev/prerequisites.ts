import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'

/** The packages of dev/prerequisites.txt whose file is missing (under `root`, `/` but for the test of this). */
export function missingPackages(root = process.env.PREREQUISITES_ROOT ?? '/'): string[] {
  return readFileSync(path.join(import.meta.dirname, 'prerequisites.txt'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('#'))
    .map((line) => line.trim().split(/\s+/) as [string, string])
    .filter(([, file]) => !existsSync(path.join(root, file)))
    .map(([name]) => name)
}

/**
 * Stops at once, naming what is missing and the one command that installs it; with `install` (and as
 * root on a machine with apt-get), installs it instead, as .ci/run does.
 */
export function ensurePrerequisites(install: boolean): void {
  const missing = missingPackages()
  if (missing.length === 0) return
  const command = ['apt-get', 'install', '-y', '--no-install-recommends', ...missing]
  if (install && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    console.log(`Installing ${missing.join(' ')} with apt-get`)
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
    if (spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env }).status === 0 &&
      spawnSync(command[0]!, command.slice(1), { stdio: 'inherit', env }).status === 0) return
    console.error(`apt-get could not install ${missing.join(' ')}`)
  } else {
    console.error(`npm test needs Debian packages that this machine lacks: ${missing.join(', ')}. Install them with:\n`)
    console.error(`  sudo ${command.join(' ')}\n`)
    console.error('or, as root, let npm test install them: npm test -- --install-prerequisites')
  }
  console.log('\n0 passed, 1 failed')
  process.exit(1)
}
