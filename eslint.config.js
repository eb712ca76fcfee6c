// ESLint: typescript-eslint's recommended rules (bugs and unsafe constructs, no style rules: layout
// is left to the authors). `npm run lint` runs it over every folder with code; CI runs it (.ci/run).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'dist.building/', '**/*.py'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: {
        console: 'readonly', process: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly',
        clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly',
        performance: 'readonly', fetch: 'readonly', AbortController: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly',
      },
    },
    rules: {
      // Style, not bugs: / {3}/ says no more than /   / does.
      'no-regex-spaces': 'off',
      // `_name` marks a value left unused on purpose (a destructured field dropped, a callback's argument).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
);
