// ESLint's recommended rules (undefined names, unused variables, unreachable code, ...) over the browser client,
// the verifier page's classic scripts, the mental-poker scripts and the Node tools; run by `make lint`.
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['static/vendor/**', 'node_modules/**'] },
  js.configs.recommended,
  {
    files: ['static/**/*.js'],
    languageOptions: { sourceType: 'module', globals: { ...globals.browser } },
  },
  {
    files: ['verifier/**/*.js', 'mental_poker/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser, ...globals.node } },
  },
  {
    files: ['verifier/noble.js', 'eslint.config.js'],
    languageOptions: { sourceType: 'module' },
  },
  {
    files: ['bin/**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
  },
];
