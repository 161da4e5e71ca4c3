import { AsyncLocalStorage } from 'node:async_hooks'
import http from 'node:http'
import https from 'node:https'
import type { Duplex } from 'node:stream'

/**
 * The road firebase-admin takes to the identity service (ADR 029). On its own it gives each try
 * 25 s and retries a reset or timed-out connection 4 times: a hung service held a visitor 132 s
 * and a socket per visitor. Every firebase-admin call of the portal runs inside `withDeadline()`
 * (under the identity client's in-flight bound), and every connection it opens goes through
 * `deadlineAgent()`, which destroys it at that call's deadline, and refuses new ones after it,
 * with an error firebase-admin does not retry. So a call, its key fetches and its retries end
 * by the deadline, and they hold a connection only while the bound admits the call.
 */

interface AdminCall {
  deadline: number
  /** A connection of this call failed or was cut: its error says nothing about the session. */
  networkFailed: boolean
}

const calls = new AsyncLocalStorage<AdminCall>()

/** Runs `work` with its connections bound to end within `ms`; tells whether the network failed on the way. */
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

/**
 * An agent without keep-alive and without a queue (maxSockets stays Infinity), so each request
 * opens its own connection synchronously, in the context of the call that made it. A call made
 * outside `withDeadline()` gets `fallbackMs`.
 */
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
        // No connection at all: an agent takes the callback's answer when this returns nothing.
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
