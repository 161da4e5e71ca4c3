export { beginSso, callbackOriginFor, finishSso, type SsoSettings, type SsoState } from './protocol'
export { handleSsoCallback, ssoOffered, ssoProviderName, startSso } from './handlers'
