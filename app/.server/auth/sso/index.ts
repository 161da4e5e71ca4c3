export { beginSso, callbackOriginFor, finishSso, type SsoSettings, type SsoState } from './protocol'
export { handleSsoCallback, ssoOffered, ssoProviderMark, ssoProviderName, startSso } from './handlers'
