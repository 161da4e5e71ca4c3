import { Transform } from 'node:stream'
import type { ActionFunctionArgs, AppLoadContext, EntryContext, LoaderFunctionArgs } from '@remix-run/node'
import { createReadableStreamFromReadable } from '@remix-run/node'
import { RemixServer } from '@remix-run/react'
import { isbot } from 'isbot'
import { renderToPipeableStream } from 'react-dom/server'
import { I18nextProvider } from 'react-i18next'
import { NonceContext } from '~/lib/nonce'
import { getI18n, getLocale } from '~/.server/i18n'
import { logger } from '~/.server/ops/logger'
import { initSentry, reportError } from '~/.server/ops/sentry'

initSentry()

const ABORT_DELAY = 5_000
export const streamTimeout = ABORT_DELAY

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = loadContext.cspNonce
  const i18n = getI18n(getLocale(request))
  // Bots and no-JS visitors get the whole document at once; browsers get it streamed.
  const readyEvent = isbot(request.headers.get('user-agent') ?? '') ? 'onAllReady' : 'onShellReady'

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false
    // Ends a render still streaming after ABORT_DELAY. Cleared when the render ends: a pending
    // timer would keep each finished render in memory for the whole delay.
    const timer = setTimeout(() => abort(), ABORT_DELAY)
    const { pipe, abort } = renderToPipeableStream(
      <NonceContext.Provider value={nonce}>
        <I18nextProvider i18n={i18n}>
          <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
        </I18nextProvider>
      </NonceContext.Provider>,
      {
        nonce,
        [readyEvent]() {
          shellRendered = true
          const body = documentStream()
          responseHeaders.set('Content-Type', 'text/html; charset=utf-8')
          responseHeaders.set('Cache-Control', 'no-store')
          resolve(
            new Response(createReadableStreamFromReadable(body), { headers: responseHeaders, status: responseStatusCode }),
          )
          body.once('close', () => clearTimeout(timer))
          pipe(body)
        },
        onShellError(error: unknown) {
          clearTimeout(timer)
          reject(error)
        },
        onError(error: unknown) {
          responseStatusCode = 500
          // Errors while streaming are reported by handleError; log here only before the shell.
          if (!shellRendered) logger.error({ event: 'render-error', err: String(error) }, 'render failed')
        },
      },
    )
  })
}

const DOCUMENT_END = Buffer.from('</body></html>')

/**
 * The bytes React streams, made a valid document:
 * - React 18's stream encoder flushes its whole 2 KB buffer, unwritten tail included, when a
 *   multi-byte character does not fit at its end (facebook/react#24985, fixed only in React 19):
 *   stray NUL bytes reach the visitor. A NUL byte is never part of a UTF-8 sequence and never
 *   belongs in HTML, so every one is dropped.
 * - What streams after the shell (Remix's data and React's boundary scripts) would follow
 *   `</html>`, where no element may stand: the closing tags are held back and written last.
 */
function documentStream(): Transform {
  let tail: Buffer = Buffer.alloc(0)
  let closed = false
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const bytes = withoutNul(chunk)
      if (closed) return done(null, bytes)
      const joined = tail.length ? Buffer.concat([tail, bytes]) : bytes
      const at = joined.indexOf(DOCUMENT_END)
      if (at >= 0) {
        closed = true
        tail = Buffer.alloc(0)
        return done(null, Buffer.concat([joined.subarray(0, at), joined.subarray(at + DOCUMENT_END.length)]))
      }
      // The closing tags may straddle two chunks: keep what could be their beginning.
      const keep = Math.min(joined.length, DOCUMENT_END.length - 1)
      tail = joined.subarray(joined.length - keep)
      done(null, joined.subarray(0, joined.length - keep))
    },
    flush(done) {
      done(null, closed ? Buffer.concat([tail, DOCUMENT_END]) : tail)
    },
  })
}

function withoutNul(chunk: Buffer): Buffer {
  if (!chunk.includes(0)) return chunk
  const parts: Buffer[] = []
  for (let from = 0, at = chunk.indexOf(0); from < chunk.length; at = chunk.indexOf(0, from)) {
    const end = at < 0 ? chunk.length : at
    if (end > from) parts.push(chunk.subarray(from, end))
    from = end + 1
  }
  return Buffer.concat(parts)
}

/**
 * Unexpected errors in loaders, actions and rendering (thrown Responses are expected and never
 * come here): logged with the request id, reported, and shown as the translated error page.
 */
export function handleError(error: unknown, { request, context }: LoaderFunctionArgs | ActionFunctionArgs) {
  if (request.signal.aborted || isExpected(error)) return
  const message = error instanceof Error ? error.message : String(error)
  logger.error({ event: 'unexpected-error', reqId: context.requestId, err: { name: (error as Error)?.name, message } }, message)
  reportError(error)
}

/** Answers the portal or Remix gives on purpose (4xx responses, the `?_data` warning): not errors. */
function isExpected(error: unknown): boolean {
  if (error instanceof Error) return error.message.startsWith('Warning: Single fetch-enabled apps should not be making ?_data')
  const status = (error as { status?: unknown; init?: { status?: unknown } } | null)?.status ?? (error as { init?: { status?: unknown } } | null)?.init?.status
  return typeof status === 'number' && status < 500
}

/** The process around this build (server/main.ts takes it from here: one module graph, ADR 023). */
export { serve } from '~/.server/http/serve'
