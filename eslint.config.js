// The linter: ESLint's and typescript-eslint's recommended rules over every TypeScript file,
// the promise rules that need types, and the layers of tools/lint/layers.js.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import layers from './tools/lint/eslint-plugin-layers.js';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.cache/', 'test/.generated/', 'test/fixtures/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Message code is asynchronous throughout: a promise nobody awaits or handles loses its
      // error (an unhandled rejection ends the process), and a promise where a callback's
      // result is ignored (an event listener, a condition) is never awaited.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    files: ['src/**/*.ts', 'transports/**/*.ts', 'bin/**/*.ts'],
    plugins: { layers },
    rules: { 'layers/imports': 'error' },
  },
  {
    rules: {
      // A binding a closure reads before its single assignment (a server's handler, a shutdown hook) stays `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // `_name` marks a parameter or binding that is there for its position only.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // Handler modules of the examples are plain JavaScript run by Node.
    files: ['**/*.js'],
    languageOptions: { globals: { console: 'readonly', process: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } },
  },
  {
    // CommonJS preloads (node --require) of the tools.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', process: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['test/**'],
    // Tests read arbitrary fields of answers they did not type.
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
