// Bundles the HTTP server (server/http/main.ts) beside the Remix build; npm packages stay external.
import { build } from 'esbuild'

await build({
  entryPoints: ['server/http/main.ts'],
  outfile: 'build/http/main.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
})
