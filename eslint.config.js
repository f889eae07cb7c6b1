// Lint rules: typescript-eslint's recommended set; formatting is prettier's (eslint-config-prettier
// turns off the rules that would disagree with it).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'feature-pools/', 'tests/fixtures/', '**/*.d.ts', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { globals: globals.node },
    rules: {
      // `_name` marks a parameter an interface requires and this implementation does not use.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Control characters are matched on purpose: they are what untrusted text is cleaned of.
      'no-control-regex': 'off',
    },
  },
  { files: ['reports/html/*.js', 'harness/play/page/*.js'], languageOptions: { globals: globals.browser } },
  // run.db is read and written only through harness/store's typed functions (docs/run-log.md).
  {
    files: ['**/*.ts'],
    ignores: ['harness/store/**', 'tests/**', 'bench/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'better-sqlite3', message: 'SQL lives in harness/store: add a typed function there.' }],
          patterns: [{ group: ['**/store/database.ts'], message: 'the store database is private to harness/store.' }],
        },
      ],
    },
  },
  // The fakes read request bodies as the services do: arbitrary JSON, checked rule by rule.
  { files: ['tests/fakes/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
);
