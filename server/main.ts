import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { ServerBuild } from 'react-router'
import { identityMissing, parseConfig } from '../app/.server/config'
import type { serve } from '../app/.server/http/serve'

// Everything but the configuration parser comes from the React Router
// build, so the process has one copy of each module (see ADR 023).
const result = parseConfig(process.env)
if (!result.ok) {
  for (const problem of result.errors) console.error(`Invalid configuration: ${problem}`)
  process.exit(1)
}
const missing = identityMissing(process.env, result.config)
if (missing) {
  console.error(missing)
  process.exit(1)
}
for (const warning of result.warnings) console.warn(`Warning: ${warning}`)

const buildDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const build = (await import(pathToFileURL(path.join(buildDir, 'server/index.js')).href)) as ServerBuild
const entry = build.entry.module as typeof build.entry.module & { serve: typeof serve }
await entry.serve(build, { clientDir: path.join(buildDir, 'client') })
