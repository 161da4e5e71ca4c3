import { vitePlugin as remix } from '@remix-run/dev'
import { defineConfig } from 'vite'
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

export default defineConfig({
  // app/routes.ts lists the routes (v3_routeConfig); the naive reference has no such file.
  plugins: [remix({ future: { ...V3_FUTURE, v3_routeConfig: true } })],
  resolve: { alias: { '~': fileURLToPath(new URL('./app', import.meta.url)) } },
  build: { target: 'es2022', assetsInlineLimit: 0 },
  server: { hmr: { port: 24678 } },
})
