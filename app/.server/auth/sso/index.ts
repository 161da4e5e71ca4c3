/** Single sign-on (ADR 011): the protocol, the state cookie and the two routes' handlers. */
export { beginSso, callbackOriginFor, finishSso, type SsoSettings, type SsoState } from './protocol'
export { handleSsoCallback, ssoOffered, ssoProviderMark, ssoProviderName, startSso } from './handlers'
