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

async function startProvider(): Promise<void> {
  const { flagsFile } = getConfig()
  if (!flagsFile) return
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
  } catch (error) {
    logger.warn({ event: 'flags-provider-failed', error: (error as Error).message }, 'feature flags: using defaults')
  }
}

const ready = singleton('flags-provider', () => startProvider())

export async function getFlags(): Promise<Flags> {
  await ready
  const { flagOverrides } = getConfig()
  const client = OpenFeature.getClient()
  const entries = await Promise.all(
    FLAG_NAMES.map(async (name) => [name, flagOverrides[name] ?? (await client.getBooleanValue(name, false))] as const),
  )
  return Object.fromEntries(entries) as Flags
}
