import { AsyncLocalStorage } from 'node:async_hooks'
import http from 'node:http'
import https from 'node:https'
import type { Duplex } from 'node:stream'

// firebase-admin alone gives each try 25 s and retries 4 times (a hung service held a visitor 132 s). Every call runs
// in withDeadline() and its connections go through deadlineAgent(), which destroys them at the deadline. See ADR 029.

interface AdminCall {
  deadline: number
  networkFailed: boolean
}

const calls = new AsyncLocalStorage<AdminCall>()

export async function withDeadline<T>(
  ms: number,
  work: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown; networkFailed: boolean }> {
  const call: AdminCall = { deadline: Date.now() + ms, networkFailed: false }
  return calls.run(call, async () => {
    try {
      return { ok: true, value: await work() }
    } catch (error) {
      return { ok: false, error, networkFailed: call.networkFailed }
    }
  })
}

function deadlineError(): Error {
  // Not ECONNRESET or ETIMEDOUT: firebase-admin retries those.
  return Object.assign(new Error('identity call deadline passed'), { code: 'IDENTITY_DEADLINE' })
}

/** No keep-alive and no queue, so each request opens its own connection inside the call that made it. */
export function deadlineAgent(secure: boolean, fallbackMs: number): http.Agent {
  const Base = secure ? https.Agent : http.Agent
  class DeadlineAgent extends Base {
    override createConnection(
      options: Parameters<http.Agent['createConnection']>[0],
      callback?: (error: Error | null, socket: Duplex) => void,
    ): Duplex | null | undefined {
      const call = calls.getStore()
      const remaining = (call?.deadline ?? Date.now() + fallbackMs) - Date.now()
      if (remaining <= 0) {
        if (call) call.networkFailed = true
        process.nextTick(() => callback?.(deadlineError(), undefined as unknown as Duplex))
        return undefined
      }
      const socket = super.createConnection(options, callback)
      if (!socket) return socket
      const timer = setTimeout(() => socket.destroy(deadlineError()), remaining)
      socket.once('error', () => {
        if (call) call.networkFailed = true
      })
      socket.once('close', () => clearTimeout(timer))
      return socket
    }
  }
  return new DeadlineAgent({ keepAlive: false })
}
