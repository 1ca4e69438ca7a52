// ESLint flat configuration (pinned: eslint, @eslint/js, typescript-eslint in package.json). `npm run lint` checks src/;
// `npm run lint:all` also checks tests, bench and scripts. Rules kept to those that find real faults.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.cache/**',
      '.venv/**',
      '.bench/**',
      'reports/**',
      'references/**',
      'assets/**',
      'build/**',
      'jupyter/**',
      'notebooks/**',
      'test/fixtures/**',
      'src/**/*-wasm.ts',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.mjs'],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        performance: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        structuredClone: 'readonly',
        WebAssembly: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        SharedArrayBuffer: 'readonly',
        Atomics: 'readonly',
        fetch: 'readonly',
        globalThis: 'readonly',
      },
    },
    rules: {
      eqeqeq: ['error', 'always'],
      'no-var': 'error',
      'prefer-const': 'error',
      'no-throw-literal': 'error',
      // Off: it flags a variable initialised before a try or an if/else that assigns it on every path — defensive
      // style used across the tree, not a fault.
      'no-useless-assignment': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    // No `any` in the library: public boundaries are typed, and inner code says what it holds.
    files: ['src/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'error' },
  },
  {
    // Tests and benchmarks poke at malformed inputs on purpose.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
