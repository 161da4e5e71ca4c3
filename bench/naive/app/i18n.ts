export default {
  supportedLngs: ['fr', 'en'],
  fallbackLng: 'fr',
  defaultNS: 'common',
}
