import { RouterContextProvider } from 'react-router'

/** What the HTTP server hands to every loader and action (see app/.server/http/app.ts). */
export interface PortalContext {
  /** The visitor's address: the socket's, or the one TRUST_PROXY hops of proxies reported. */
  clientIp: string
  /** The User-Agent header (at most 512 characters): a session record names its device by it. */
  userAgent?: string
  /** The configured public origin (PUBLIC_URL), never derived from Host or X-Forwarded-Host. */
  publicOrigin: string
  requestId: string
  /** This response's Content-Security-Policy nonce, for the inline scripts the page renders. */
  cspNonce: string
  /** The request's Origin header (the HTTP server takes it out of the request React Router sees). */
  requestOrigin: string | null
  /** The request's body was over the limit: React Router is given none of it (app/.server/http/body-limit.ts), a 413 page. */
  bodyTooLarge?: boolean
  /** The status the HTTP server refused the request with, rendered as the error page (ERROR_ROUTE). */
  errorStatus?: number | null
  /** Runs `work` once this response has gone out (or the client left): what must not weigh on its time (ADR 066). */
  afterResponse?: (work: () => void) => void
}

/**
 * React Router hands loaders and actions a RouterContextProvider. The HTTP server makes one per
 * request with the portal's values as its own properties (createPortalContext), so they read
 * `context.clientIp` as before; the declaration below types them.
 */
declare module 'react-router' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface RouterContextProvider extends PortalContext {}
}

/** What loaders, actions and entry.server get as `context`. */
export type AppLoadContext = Readonly<RouterContextProvider>

/** The load context of one request (getters, if any, are kept as getters). */
export function createPortalContext(values: PortalContext): RouterContextProvider {
  return Object.defineProperties(new RouterContextProvider(), Object.getOwnPropertyDescriptors(values))
}
