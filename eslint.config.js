import js from '@eslint/js'
import jsxA11y from 'eslint-plugin-jsx-a11y'
import react from 'eslint-plugin-react'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['build/', '**/build/', 'node_modules/', 'test-results/', 'playwright-report/', '.cache/', '.react-router/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx,js}'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['app/**/*.tsx'],
    ...react.configs.flat.recommended,
    ...react.configs.flat['jsx-runtime'],
    settings: { react: { version: '19.3' } },
  },
  {
    files: ['app/**/*.tsx'],
    plugins: { 'react-hooks': reactHooks, 'jsx-a11y': jsxA11y },
    rules: {
      ...reactHooks.configs.recommended.rules,
      ...jsxA11y.flatConfigs.strict.rules,
      'react/prop-types': 'off',
      // Every visible string is a translation key: this rule is the check (locales/locales.test.ts checks the translations).
      'react/jsx-no-literals': ['error', { noStrings: false, allowedStrings: [' ', '·', '–'], ignoreProps: true }],
    },
  },
  {
    // One module graph (ADR 023): the process entry takes the app from the React Router build, so it may
    // import only the (pure) configuration parser and types from app/.
    files: ['server/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./app/(?!\\.server/config$)',
              allowTypeImports: true,
              message: 'Take it from the React Router build (build.entry.module), not a second copy of the module: ADR 023.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['tests/**/*.ts'],
    rules: { 'no-empty-pattern': 'off' },
  },
)
