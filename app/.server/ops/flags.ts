import { readFile } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { OFREPProvider } from '@openfeature/ofrep-provider'
import { ErrorCode, InMemoryProvider, OpenFeature, type Client } from '@openfeature/server-sdk'
import { z } from 'zod'
import { getConfig } from '~/.server/config'
import { logger } from './logger'
import { recordCacheFilled } from './metrics'

// First answer wins: a FLAG_<NAME> setting, then the remote OFREP service (a cache
// refreshed in the background, never waited on but once at start), then the flagd
// file, then false. A service that is down leaves its last values (see ADR 008).
export const FLAG_NAMES = ['sso', 'emailLinkSignIn', 'passkeys', 'signUp'] as const
export type Flags = Record<(typeof FLAG_NAMES)[number], boolean>

const REMOTE_CALL_TIMEOUT_MS = 2_000
const FIRST_WAIT_MS = 300
/** A parsed answer costs many times its size: a 40 MB one exhausts the 192 MB heap. */
const MAX_ANSWER_BYTES = 64 * 1024
/** Anchored, so linear on any input. */
const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i
const ANONYMOUS = { targetingKey: 'anonymous' }

const REMOTE_DOMAIN = 'flags-remote'
let remoteInstances = 0
const FILE_DOMAIN = 'flags-file'

const FlagdFile = z.object({
  flags: z.record(
    z.string(),
    z
      .object({
        state: z.enum(['ENABLED', 'DISABLED']),
        variants: z.record(z.string(), z.boolean()),
        defaultVariant: z.string(),
      })
      .transform(({ state, ...flag }) => ({ ...flag, disabled: state === 'DISABLED' })),
  ),
})

/** Without a provider the SDK is not asked: it builds an error per call. */
async function startFileProvider(): Promise<boolean> {
  const { flagsFile } = getConfig()
  if (!flagsFile) return false
  try {
    const { flags } = FlagdFile.parse(JSON.parse(await readFile(flagsFile, 'utf8')))
    // Nothing to time out: the in-memory provider has no initialize step and is ready at once.
    await OpenFeature.setProviderAndWait(FILE_DOMAIN, new InMemoryProvider(flags))
    return true
  } catch (error) {
    logger.warn({ event: 'flags-provider-failed', error: (error as Error).message }, 'feature flags: using defaults')
    return false
  }
}

/** Header values are credentials: they never reach a log line. */
export class RemoteFlags {
  private values: Partial<Flags> = {}
  private refreshedAt = -Infinity
  private refreshing: Promise<void> | null = null
  private readonly first: Promise<void>
  private firstWait: Promise<void> | null = null
  private down = false
  private problem: string | null = null
  private readonly client: Client

  constructor(
    remote: { url: string; headers: Array<[string, string]>; maxAgeMs: number },
    private readonly timing = {
      callTimeoutMs: REMOTE_CALL_TIMEOUT_MS,
      firstWaitMs: FIRST_WAIT_MS,
      maxAgeMs: remote.maxAgeMs,
    },
  ) {
    const provider = new OFREPProvider({
      baseUrl: remote.url,
      headers: remote.headers,
      fetchImplementation: (input, init) => this.fetch(input, init),
    })
    // A domain of its own per instance (one in the portal; tests make more).
    const domain = `${REMOTE_DOMAIN}-${++remoteInstances}`
    OpenFeature.setProvider(domain, provider)
    this.client = OpenFeature.getClient(domain)
    this.first = this.refresh()
  }

  async get(): Promise<Partial<Flags>> {
    if (!this.refreshing && Date.now() - this.refreshedAt >= this.timing.maxAgeMs) void this.refresh()
    // Once the first refresh ended, this wait is over at once.
    this.firstWait ??= Promise.race([this.first, sleep(this.timing.firstWaitMs, undefined, { ref: false })])
    await this.firstWait
    return this.values
  }

  private refresh(): Promise<void> {
    this.refreshing ??= this.evaluateAll()
      .catch((error: Error) => this.report([error.message]))
      .finally(() => {
        this.refreshing = null
        this.refreshedAt = Date.now()
      })
    return this.refreshing
  }

  private async evaluateAll(): Promise<void> {
    this.problem = null
    const next: Partial<Flags> = { ...this.values }
    const failures: string[] = []
    await Promise.all(
      FLAG_NAMES.map(async (name) => {
        const details = await this.client.getBooleanDetails(name, false, ANONYMOUS)
        if (!details.errorCode) next[name] = details.value
        else if (details.errorCode === ErrorCode.FLAG_NOT_FOUND) delete next[name]
        else failures.push(`${name}: ${details.errorCode} ${details.errorMessage ?? ''}`.trim())
      }),
    )
    this.values = next
    // Filled only when every flag answered: the age is that of the oldest value held.
    if (failures.length === 0) recordCacheFilled('flags')
    this.report(failures)
  }

  private report(failures: string[]): void {
    if (failures.length > 0 && !this.down) {
      this.down = true
      logger.warn(
        { event: 'flags-remote-failed', error: this.problem ?? failures.join('; ') },
        'feature flags: remote flag service unavailable, using its last values or the next source',
      )
    } else if (failures.length === 0 && this.down) {
      this.down = false
      logger.info({ event: 'flags-remote-recovered' }, 'feature flags: remote flag service answers again')
    }
  }

  /** The provider has no time-out or size bound of its own. */
  private async fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    try {
      const response = await fetch(input, { ...init, signal: AbortSignal.timeout(this.timing.callTimeoutMs) })
      // 200, and 400/404/500 with an OFREP error body, are protocol answers; anything else is not.
      if (![200, 400, 404, 500].includes(response.status)) {
        this.problem = `HTTP ${response.status}`
        await response.body?.cancel()
        return new Response(null, { status: response.status })
      }
      const type = response.headers.get('content-type') ?? ''
      if (!JSON_TYPE.test(type)) {
        await response.body?.cancel()
        throw new Error(`answer not JSON: ${type.split(';')[0]?.trim().slice(0, 64) || 'no Content-Type'}`)
      }
      const body = await readAtMost(response, MAX_ANSWER_BYTES)
      return new Response(body, { status: response.status, headers: response.headers })
    } catch (error) {
      const err = error as Error & { cause?: { code?: string; message?: string } }
      this.problem =
        err.name === 'TimeoutError'
          ? `no answer within ${this.timing.callTimeoutMs} ms`
          : (err.cause?.code ?? err.cause?.message ?? err.message)
      throw error
    }
  }
}

async function readAtMost(response: Response, max: number): Promise<string> {
  const tooLarge = () => new Error(`answer over ${max} bytes`)
  if (Number(response.headers.get('content-length')) > max) {
    await response.body?.cancel()
    throw tooLarge()
  }
  if (!response.body) return ''
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return Buffer.concat(chunks).toString('utf8')
    size += value.byteLength
    if (size > max) {
      await reader.cancel()
      throw tooLarge()
    }
    chunks.push(value)
  }
}

// Started at module load: it never blocks the server.
const { flagsRemote } = getConfig()
const remoteFlags = flagsRemote ? new RemoteFlags(flagsRemote) : null
const fileReady = startFileProvider()

export async function getFlags(): Promise<Flags> {
  const { flagOverrides } = getConfig()
  const [remote, file] = await Promise.all([remoteFlags ? remoteFlags.get() : ({} as Partial<Flags>), fileReady])
  const fileClient = OpenFeature.getClient(FILE_DOMAIN)
  const entries = await Promise.all(
    FLAG_NAMES.map(async (name) => {
      const value =
        flagOverrides[name] ?? remote[name] ?? (file ? await fileClient.getBooleanValue(name, false, ANONYMOUS) : false)
      return [name, value] as const
    }),
  )
  return Object.fromEntries(entries) as Flags
}
