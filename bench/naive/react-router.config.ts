import type { Config } from '@react-router/dev/config'

// The framework's defaults, as its templates have them: app/ and build/ beside this file.
export default { ssr: true } satisfies Config
