import { PassThrough } from 'node:stream'
import { createReadableStreamFromReadable } from '@react-router/node'
import { ServerRouter, type ActionFunctionArgs, type EntryContext, type LoaderFunctionArgs } from 'react-router'
import { isbot } from 'isbot'
import { renderToPipeableStream } from 'react-dom/server'
import { I18nextProvider } from 'react-i18next'
import { NonceContext } from '~/lib/nonce'
import type { AppLoadContext } from '~/.server/context'
import { getI18n, getLocale } from '~/.server/i18n'
import { logger } from '~/.server/ops/logger'
import { initSentry, reportError } from '~/.server/ops/sentry'

void initSentry()

export const streamTimeout = 5_000

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = loadContext.cspNonce
  const i18n = getI18n(getLocale(request))
  // Bots and no-JS visitors get the whole document at once; browsers get it streamed.
  const readyEvent = isbot(request.headers.get('user-agent') ?? '') ? 'onAllReady' : 'onShellReady'

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false
    // Cleared when the render ends: a pending timer would keep each finished render in memory for the whole delay.
    const timer = setTimeout(() => abort(), streamTimeout)
    const { pipe, abort } = renderToPipeableStream(
      <NonceContext.Provider value={nonce}>
        <I18nextProvider i18n={i18n}>
          <ServerRouter context={routerContext} url={request.url} nonce={nonce} />
        </I18nextProvider>
      </NonceContext.Provider>,
      {
        nonce,
        [readyEvent]() {
          shellRendered = true
          // React 19 writes `</body></html>` after everything streamed later.
          const body = new PassThrough()
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
          // Errors while streaming are reported by handleError.
          if (!shellRendered) logger.error({ event: 'render-error', err: String(error) }, 'render failed')
        },
      },
    )
  })
}

/** Every data request carries the root loader's data, the CSRF token among it: no cache may keep one. */
export function handleDataRequest(response: Response) {
  response.headers.set('Cache-Control', 'no-store')
  return response
}

export function handleError(error: unknown, { request, context }: LoaderFunctionArgs | ActionFunctionArgs) {
  if (request.signal.aborted || isExpected(error)) return
  const message = error instanceof Error ? error.message : String(error)
  logger.error({ event: 'unexpected-error', reqId: context.requestId, err: { name: (error as Error)?.name, message } }, message)
  reportError(error)
}

function isExpected(error: unknown): boolean {
  const status = (error as { status?: unknown; init?: { status?: unknown } } | null)?.status ?? (error as { init?: { status?: unknown } } | null)?.init?.status
  return typeof status === 'number' && status < 500
}

/** server/main.ts takes it from here: one module graph (see ADR 023). */
export { serve } from '~/.server/http/serve'
