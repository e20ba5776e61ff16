import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    // The organizer console: plain ES modules that run in the browser as they are served.
    files: ['console/**/*.js'],
    languageOptions: { globals: globals.browser },
  },
  {
    // The gate scanner's service worker: plain JavaScript, completed by the build.
    files: ['web/scan/sw.js'],
    languageOptions: { globals: globals.serviceworker },
  },
);
