import { vitePlugin as remix } from '@remix-run/dev'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'
import { V3_FUTURE } from '../../vite.config'

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

export default defineConfig({
  root: here('.'),
  logLevel: 'warn',
  plugins: [
    remix({
      appDirectory: here('./app'),
      buildDirectory: here('./build'),
      future: V3_FUTURE,
    }),
  ],
})
