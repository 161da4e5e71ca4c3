import type { Strings } from './lib/i18n'

// Translation keys are checked at compile time against the English file;
// a unit test checks that the French file has exactly the same keys.
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'common'
    resources: { common: Strings }
  }
}
