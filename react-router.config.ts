import type { Config } from '@react-router/dev/config'

/** Server rendering, the build in build/ (server/index.js beside client/), which server/main.ts loads. */
export default {
  ssr: true,
  buildDirectory: 'build',
} satisfies Config
