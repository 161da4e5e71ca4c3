export { handleSsoCallback, ssoOffered, ssoProviderMark, ssoProviderName, startSso } from './handlers'
