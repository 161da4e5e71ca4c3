import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ServerBuild } from 'react-router'
import { afterEach, expect, it } from 'vitest'
import { ERROR_ROUTE } from '~/lib/error-status'
import { fakeBuild } from '../../../tests/support/fake-build'
import { parseConfig } from '~/.server/config'
import { createApp } from './app'

/**
 * A failure outside React Router's own error handling (here: the build cannot be loaded, once) is handed
 * back to React Router as the error route with its status, so the visitor gets the error page; a second
 * failure falls back to the plain status line.
 */
let server: Server | undefined
afterEach(() => {
  server?.close()
  server = undefined
})

/** The error route's loader says what it was given; any other page answers 200. */
const build = fakeBuild(
  {},
  {
    'routes/$': {
      path: '*',
      module: {
        loader: ({ request, context }) =>
          new URL(request.url).pathname === ERROR_ROUTE
            ? new Response(`error page ${String(context.errorStatus)} for ${request.method}`, {
                status: Number(context.errorStatus),
              })
            : new Response('page'),
      },
    },
  },
)

async function start(failures: number) {
  const result = parseConfig({})
  if (!result.ok) throw new Error(result.errors.join())
  let left = failures
  const load = (): Promise<ServerBuild> => (left-- > 0 ? Promise.reject(new Error('build unavailable')) : Promise.resolve(build))
  server = createApp({ config: result.config, build: load }).listen(0, '127.0.0.1')
  await new Promise((r) => server!.once('listening', r))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

it('renders the 500 error page through React Router when a request fails outside it', async () => {
  const base = await start(1)
  const res = await fetch(`${base}/forgot-password`, { method: 'POST', body: 'email=a' })
  expect(res.status).toBe(500)
  expect(await res.text()).toBe('error page 500 for GET')
})

it('answers a plain status line when the error page fails too, and for files and data requests', async () => {
  expect(await (await fetch(`${await start(2)}/`)).text()).toBe('Internal Server Error')
  server?.close()
  const res = await fetch(`${await start(1)}/_.data`)
  expect(res.status).toBe(500)
  expect(await res.text()).toBe('Internal Server Error')
})
