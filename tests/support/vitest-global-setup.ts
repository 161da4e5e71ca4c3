import type { TestProject } from 'vitest/node'
import { startEmulator } from '../../dev/emulator'

/** One Auth emulator for the whole vitest run; tests reach it through inject('emulator'). */
export default async function setup(project: TestProject) {
  const emulator = await startEmulator()
  project.provide('emulator', { origin: emulator.origin, host: emulator.host, projectId: emulator.projectId })
  return () => emulator.stop()
}

declare module 'vitest' {
  export interface ProvidedContext {
    emulator: { origin: string; host: string; projectId: string }
  }
}
