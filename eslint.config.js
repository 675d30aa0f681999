// ESLint flat config (ESLint 9, typescript-eslint 8).
//
// TypeScript files are linted with typescript-eslint's *type-checked* strict
// set through the project service (it reuses tsconfig.json, so every file
// tsc sees is linted with full type information). Plain JavaScript files
// (this file, scripts) get the same strict set without type information.
//
// The import graph between `src/` folders is not checked here but by
// `test/architecture/layers.test.ts` (see docs/architecture.md).

import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/**
 * `no-explicit-any` (and every other rule) may be switched off for one line,
 * but the comment must say why: `// eslint-disable-next-line rule -- reason`.
 * ESLint 9 parses the ` -- ` description itself; this tiny local rule only
 * insists that one is there (the usual plugin for it is not a dependency).
 */
const requireDisableReason = {
  meta: {
    type: 'suggestion',
    docs: { description: 'Require a `-- reason` on every eslint-disable comment' },
    schema: [],
    messages: { missing: 'Say why the rule is disabled: `{{directive}} <rule> -- <reason>`.' },
  },
  create(context) {
    return {
      Program() {
        for (const comment of context.sourceCode.getAllComments()) {
          const text = comment.value.trim();
          const match = /^(eslint-disable(?:-next-line|-line)?)\b/.exec(text);
          if (match === null) continue;
          const dash = text.indexOf(' -- ');
          if (dash === -1 || text.slice(dash + 4).trim() === '') {
            context.report({ loc: comment.loc, messageId: 'missing', data: { directive: match[1] } });
          }
        }
      },
    };
  },
};

const TS_FILES = ['**/*.ts', '**/*.tsx', '**/*.mts', '**/*.cts'];
const JS_FILES = ['**/*.js', '**/*.mjs', '**/*.cjs'];

export default defineConfig(
  {
    ignores: ['dist/', 'node_modules/', 'coverage/', 'bench/results/', '.diglot/', '.ab-*/'],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },

  js.configs.recommended,

  // TypeScript: strict, with type information.
  {
    files: TS_FILES,
    extends: [tseslint.configs.strictTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Numbers and booleans read fine in messages (`${count} rows`); objects,
      // nullish values and unions with them still need an explicit String().
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // `() => done()` as a callback is idiomatic; a void value used anywhere else is still an error.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
    },
  },

  // JavaScript (root config files, scripts): strict without type information.
  {
    files: JS_FILES,
    extends: [tseslint.configs.strict],
    languageOptions: {
      sourceType: 'module',
      // The few Node globals scripts use; `globals` is not a direct dependency.
      globals: {
        console: 'readonly',
        process: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        performance: 'readonly',
        fetch: 'readonly',
      },
    },
  },

  // Everywhere.
  {
    plugins: { diglot: { rules: { 'require-disable-reason': requireDisableReason } } },
    rules: {
      'diglot/require-disable-reason': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      // verbatimModuleSyntax keeps an import unless it says `type`; say it inline,
      // as the existing code does: `import { ApiError, type ErrorCode } from ...`.
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'inline-type-imports' },
      ],
      // `import { type A } from 'x'` still loads 'x' under verbatimModuleSyntax.
      '@typescript-eslint/no-import-type-side-effects': 'error',
      eqeqeq: ['error', 'always'],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
    },
  },

  // Library code: no console output, no environment, no exiting. The command
  // line owns the process (STYLE.md 8 and 9); the server may log to console.
  {
    files: ['src/**'],
    ignores: ['src/cli/**', 'src/server/**'],
    rules: { 'no-console': 'error' },
  },
  {
    files: ['src/**'],
    ignores: ['src/cli/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Only src/cli reads the environment; pass options down.' },
        { object: 'process', property: 'exit', message: 'Only src/cli exits the process; throw or return instead.' },
      ],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'node:process', importNames: ['env', 'exit'], message: 'Only src/cli reads the environment or exits.' },
            { name: 'process', importNames: ['env', 'exit'], message: 'Only src/cli reads the environment or exits.' },
          ],
        },
      ],
    },
  },
  {
    // Tests read response bodies of unknown shape and let expect() check them;
    // typing every body would add noise without making a test able to fail more.
    files: ['test/**/*.ts', 'src/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
