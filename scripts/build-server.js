// Bundles the HTTP server (server/main.ts) beside the React Router build; npm packages stay external.
import { build } from 'esbuild'

await build({
  entryPoints: ['server/main.ts'],
  outfile: 'build/http/main.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node26',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
})
