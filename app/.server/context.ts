import type { RouterContextProvider } from 'react-router'

export interface PortalContext {
  /** The socket's address, or the one TRUST_PROXY hops of proxies reported. */
  clientIp: string
  userAgent?: string
  /** Never derived from Host or X-Forwarded-Host. */
  publicOrigin: string
  requestId: string
  cspNonce: string
  /** The HTTP server takes it out of the request React Router sees. */
  requestOrigin: string | null
  bodyTooLarge?: boolean
  errorStatus?: number | null
  /** For work that must not weigh on the response time (see ADR 066). */
  afterResponse?: (work: () => void) => void
}

// React Router hands loaders a RouterContextProvider; the HTTP
// server sets the portal's values on it as properties, typed here.
declare module 'react-router' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface RouterContextProvider extends PortalContext {}
}

export type AppLoadContext = Readonly<RouterContextProvider>
