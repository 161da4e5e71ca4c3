import { vitePlugin as remix } from '@remix-run/dev'
import { defineConfig } from 'vite'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

declare module '@remix-run/node' {
  interface Future {
    v3_singleFetch: true
  }
}

/** Remix's v3 future flags, all on; the bench's naive reference (bench/naive) shares them. */
export const V3_FUTURE = {
  v3_fetcherPersist: true,
  v3_relativeSplatPath: true,
  v3_throwAbortReason: true,
  v3_singleFetch: true,
  v3_lazyRouteDiscovery: true,
} as const

/** The commit being built, for portal_build_info; 'unknown' where there is no git (an image build). */
function commit(): string {
  const head = spawnSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' })
  return head.status === 0 ? head.stdout.trim() : 'unknown'
}

export default defineConfig({
  define: { __PORTAL_COMMIT__: JSON.stringify(commit()) },
  // app/routes.ts lists the routes (v3_routeConfig); the naive reference has no such file.
  plugins: [remix({ future: { ...V3_FUTURE, v3_routeConfig: true } })],
  resolve: { alias: { '~': fileURLToPath(new URL('./app', import.meta.url)) } },
  build: { target: 'es2022', assetsInlineLimit: 0 },
  server: { hmr: { port: 24678 } },
})
