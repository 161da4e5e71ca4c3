import { reactRouter } from '@react-router/dev/vite'
import { defineConfig } from 'vite'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** The commit being built, for portal_build_info; 'unknown' where there is no git (an image build). */
function commit(): string {
  const head = spawnSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' })
  return head.status === 0 ? head.stdout.trim() : 'unknown'
}

export default defineConfig({
  define: { __PORTAL_COMMIT__: JSON.stringify(commit()) },
  // react-router.config.ts holds the framework's settings; app/routes.ts lists the routes.
  plugins: [reactRouter()],
  resolve: { alias: { '~': fileURLToPath(new URL('./app', import.meta.url)) } },
  build: {
    target: 'es2022',
    assetsInlineLimit: 0,
    // A page's "email sent" part loads as it shows: its list of chunks to preload would weigh on the form's first visit (ADR 083).
    modulePreload: { resolveDependencies: (file, deps) => (/(-sent|check-email-again)-[\w-]+\.js$/.test(file) ? [] : deps) },
  },
  // The server bundle's source map, never the browser's: npm run sign-in-path maps what ran back to app/.
  environments: { ssr: { build: { sourcemap: true } } },
  server: { hmr: { port: 24678 } },
})
