import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { waitFor } from '../../dev/ports'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const NGINX_BIN = ['/usr/sbin/nginx', '/usr/bin/nginx', '/usr/local/sbin/nginx'].find(existsSync) ?? 'nginx'

/**
 * deploy/nginx.conf as it is, with only what belongs to the deployment replaced: the user, the
 * listening address, the replicas' addresses, where logs and temporary files go, and the path of
 * deploy/portal-proxy.conf. Every replacement must find its line, so a changed file fails loudly.
 */
export function deployedNginxConfig(dir: string, port: number, upstreams: number[]): string {
  let conf = readFileSync(path.join(root, 'deploy/nginx.conf'), 'utf8')
  const replace = (pattern: RegExp, by: string) => {
    if (!pattern.test(conf)) throw new Error(`deploy/nginx.conf no longer has ${pattern}: update tests/support/nginx.ts`)
    conf = conf.replace(pattern, by)
  }
  replace(/^user nginx;$/m, process.getuid?.() === 0 ? 'user root;' : '')
  replace(/^( *)server portal-1:3000 (.*)$/m, upstreams.map((p) => `$1server 127.0.0.1:${p} $2`).join('\n'))
  replace(/^ *server portal-2:3000 .*$\n/m, '')
  replace(/listen 80;/, `listen 127.0.0.1:${port};`)
  replace(/access_log \/dev\/stdout portal;/, `access_log ${dir}/access.log portal;`)
  replace(/include \/etc\/nginx\/portal-proxy\.conf;/g, `include ${path.join(root, 'deploy/portal-proxy.conf')};`)
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${dir}/${kind};`)
  replace(/^http \{$/m, `http {\n${temp.join('\n')}`)
  return conf
}

/** `nginx -t` on the deployed configuration: its exit code and what it printed. */
export function checkNginxConfig(conf: string): { status: number | null; output: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'portal-nginx-t-'))
  try {
    writeFileSync(path.join(dir, 'nginx.conf'), conf)
    const result = spawnSync(NGINX_BIN, ['-t', '-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', `pid ${dir}/nginx.pid;`], {
      encoding: 'utf8',
    })
    if (result.error) throw new Error(`nginx is missing (apt-get install nginx): ${result.error.message}`)
    return { status: result.status, output: `${result.stdout}${result.stderr}` }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export interface Nginx {
  url: string
  output(): string
  stop(): Promise<void>
}

/** nginx in the foreground with the deployed configuration, on `port`, in front of `upstreams`. */
export async function startNginx(port: number, upstreams: number[], edit: (conf: string) => string = (c) => c): Promise<Nginx> {
  const dir = mkdtempSync(path.join(tmpdir(), 'portal-nginx-'))
  const conf = path.join(dir, 'nginx.conf')
  writeFileSync(conf, edit(deployedNginxConfig(dir, port, upstreams)))
  const child = spawn(NGINX_BIN, ['-p', dir, '-c', conf, '-g', `daemon off; pid ${dir}/nginx.pid;`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (c: Buffer) => (output += c.toString()))
  child.stderr.on('data', (c: Buffer) => (output += c.toString()))
  child.on('error', (error) => (output += `\n${NGINX_BIN}: ${error.message} (apt-get install nginx)`))
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const url = `http://127.0.0.1:${port}`
  await waitFor(
    'nginx',
    async () => {
      if (child.exitCode !== null || output.includes('apt-get install nginx')) throw new Error(`nginx did not start:\n${output}`)
      await fetch(url, { method: 'HEAD' })
      return true
    },
    10_000,
  )
  return {
    url,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGQUIT')
      await exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
