/**
 * `npm run settings-doc`: writes docs/settings.md from the settings' schema (app/.server/config-schema.ts),
 * one table per group. app/.server/config-schema.test.ts fails when the file is not what this writes.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { SETTING_GROUPS } from '../app/.server/config-schema'
import { variableOf } from '../app/.server/config-values'

export const SETTINGS_DOC = path.join(import.meta.dirname, '../docs/settings.md')

const HEAD = `# Settings

<!-- Written by \`npm run settings-doc\` from app/.server/config-schema.ts: change the descriptions there. -->

All configuration comes from environment variables, parsed once at start-up (\`app/.server/config.ts\`). A bad
value stops the server with one line per problem and exit code 1. An empty variable counts as unset.
\`npm start\` passes them on to the portal it starts (its emulator, project and \`PLATFORM=local\` stay its own).
`

const TAIL = `
## Read by Node.js and firebase-admin

| Setting | Default | Description |
|---|---|---|
| \`NODE_OPTIONS\` | \`--max-old-space-size=192 --max-semi-space-size=4 --v8-pool-size=2\` (\`npm run serve\`, the image) | Node's own; the default caps the heap, its young generation and V8's threads (ADR 013, ADR 064; [pod-sizing.md](pod-sizing.md)). The image's command adds V8's \`--heap-growing-percent=10 --no-sparkplug --no-maglev\` (ADR 084), which \`NODE_OPTIONS\` refuses. |
| \`MALLOC_ARENA_MAX\` | \`2\` (\`npm run serve\`, the image) | glibc's own: fewer malloc arenas for the threads, less memory (ADR 064). |
| \`GOOGLE_APPLICATION_CREDENTIALS\` | unset | The service account's key file, which firebase-admin needs for sessions in production (or the platform's workload identity). |
`

/** Each setting under `shape`, in order, by its environment variable. */
export function settingsOf(shape: z.ZodRawShape): Array<[string, z.ZodType]> {
  return Object.values(shape).flatMap((schema) =>
    schema instanceof z.ZodObject ? settingsOf(schema.shape) : [[variableOf(schema)!, schema as z.ZodType]],
  )
}

/** What the schema gives for an unset variable. */
function defaultOf(schema: z.ZodType): string {
  const parsed = schema.safeParse(undefined)
  if (!parsed.success) return 'required'
  return parsed.data === null ? 'unset' : `\`${String(parsed.data)}\``
}

/** One table cell; `docs/x.md` becomes a link, as this file sits beside it. */
const cell = (text: string) =>
  text
    .replace(/\s+/g, ' ')
    .replaceAll('|', '\\|')
    .replace(/\bdocs\/([\w-]+\.md)/g, '[$1]($1)')
    .trim()

/** The whole of docs/settings.md: the same schema always gives the same text. */
export function settingsDoc(): string {
  const sections = SETTING_GROUPS.map(([title, group]) => {
    const rows = settingsOf(group).map(
      ([name, schema]) => `| \`${name}\` | ${defaultOf(schema)} | ${cell(schema.description ?? '')} |`,
    )
    return [`\n## ${title}\n`, '| Setting | Default | Description |', '|---|---|---|', ...rows].join('\n')
  })
  return `${HEAD}${sections.join('\n')}\n${TAIL}`
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  writeFileSync(SETTINGS_DOC, settingsDoc())
  console.log(`Wrote ${path.relative(process.cwd(), SETTINGS_DOC)}`)
}
