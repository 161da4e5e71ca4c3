import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import vnuJar from 'vnu-jar'

interface VnuMessage {
  type: string
  subType?: string
  message: string
  url: string
  extract?: string
}

/**
 * The Nu Html Checker's errors (vnu-jar, the W3C validator, on Debian's Java runtime) for each page,
 * named: `file: message [extract]`. The one message tolerated is about `passwordrules`, a WebKit
 * attribute kept on purpose for password managers.
 */
export async function htmlErrors(pages: Map<string, string>): Promise<string[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'portal-html-'))
  try {
    const files = [...pages].map(([name, html]) => {
      const file = path.join(dir, `${name}.html`)
      writeFileSync(file, html)
      return file
    })
    const { stderr } = await promisify(execFile)('java', ['-jar', vnuJar, '--format', 'json', '--exit-zero-always', ...files], {
      maxBuffer: 64 * 1024 * 1024,
    })
    const { messages } = JSON.parse(stderr) as { messages: VnuMessage[] }
    return messages
      .filter((m) => m.type === 'error' || m.type === 'non-document-error' || m.subType === 'fatal')
      .filter((m) => !m.message.includes('passwordrules'))
      .map((m) => `${path.basename(m.url)}: ${m.message} [${m.extract ?? ''}]`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
