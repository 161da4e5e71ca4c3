import { readFile } from 'node:fs/promises'
import { InMemoryProvider, OpenFeature } from '@openfeature/server-sdk'
import { z } from 'zod'
import { getConfig } from './config'
import { logger } from './observability/logger'
import { singleton } from './singleton'

/**
 * Feature flags (seed sections 1, 9): a `FLAG_<NAME>` setting of 'true' or 'false' wins;
 * otherwise the OpenFeature provider (a flagd JSON file evaluated in process, `FLAGS_FILE`);
 * otherwise false. A provider that fails or is slow at start-up leaves the defaults.
 * To plug in a remote provider, set it in `startProvider` (ADR 008).
 */
export const FLAG_NAMES = ['sso', 'emailLinkSignIn'] as const
export type FlagName = (typeof FLAG_NAMES)[number]
export type Flags = Record<FlagName, boolean>

const PROVIDER_TIMEOUT_MS = 2_000

/** The subset of flagd's flag definition format evaluated here (no targeting rules). */
const FlagdFile = z.object({
  flags: z.record(
    z.string(),
    z.object({
      state: z.enum(['ENABLED', 'DISABLED']),
      variants: z.record(z.string(), z.boolean()),
      defaultVariant: z.string(),
    }),
  ),
})

/** True when a provider is set; without one every flag is its setting or false. */
async function startProvider(): Promise<boolean> {
  const { flagsFile } = getConfig()
  if (!flagsFile) return false
  try {
    const file = FlagdFile.parse(JSON.parse(await readFile(flagsFile, 'utf8')))
    const flags = Object.fromEntries(
      Object.entries(file.flags).map(([key, flag]) => [
        key,
        { variants: flag.variants, defaultVariant: flag.defaultVariant, disabled: flag.state === 'DISABLED' },
      ]),
    )
    await Promise.race([
      OpenFeature.setProviderAndWait(new InMemoryProvider(flags)),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), PROVIDER_TIMEOUT_MS).unref()),
    ])
    return true
  } catch (error) {
    logger.warn({ event: 'flags-provider-failed', error: (error as Error).message }, 'feature flags: using defaults')
    return false
  }
}

const ready = singleton('flags-provider', () => startProvider())

export async function getFlags(): Promise<Flags> {
  const provided = await ready
  const { flagOverrides } = getConfig()
  const client = OpenFeature.getClient()
  const entries = await Promise.all(
    FLAG_NAMES.map(async (name) => {
      const value = flagOverrides[name] ?? (provided ? await client.getBooleanValue(name, false) : false)
      return [name, value] as const
    }),
  )
  return Object.fromEntries(entries) as Flags
}
