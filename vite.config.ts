import { reactRouter } from '@react-router/dev/vite'
import { defineConfig } from 'vite'
import { fileURLToPath } from 'node:url'

export default defineConfig({
  // react-router.config.ts holds the framework's settings; app/routes.ts lists the routes.
  plugins: [reactRouter()],
  resolve: { alias: { '~': fileURLToPath(new URL('./app', import.meta.url)) } },
  build: { target: 'es2022', assetsInlineLimit: 0 },
  server: { hmr: { port: 24678 } },
})
