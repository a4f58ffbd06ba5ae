// Few rules on purpose: the type checker does most of the work; these catch what it cannot.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// search-store's layers (issue 19): import patterns refused below api/ and below the use cases.
const NO_ROUTES = {
  group: ['**/api/**', '**/api'],
  message: 'Only routes live in api/: move what you need into a use case.',
};
const NO_USE_CASES = {
  group: ['**/search/**', '**/catalog/**', '**/write/**'],
  message: 'The engine does not import the use cases that call it (catalog/, write/, search/).',
};

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'coverage/**', '.data/**', 'bench/.work/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly' } },
    rules: {
      'no-eval': 'error',
      'no-new-func': 'error',
      'no-implied-eval': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-imports': ['error', { paths: ['pg-mem', 'ioredis-mock'] }],
    },
  },
  {
    // search-store's routes state their scope: they are registered through http/scoped-router.ts only.
    files: ['services/search-store/src/api/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'express',
              importNames: ['Router'],
              allowTypeImports: true,
              message:
                'Register routes with scopedRouter (http/scoped-router.ts): every route states its scope.',
            },
          ],
        },
      ],
    },
  },
  {
    // Issue 17: a dictionary keyed by user strings must not inherit (`obj.constructor` is Object) nor
    // take a `__proto__` key as a prototype write. An empty `{}` typed Record<string, …> is how such
    // dictionaries start, so it is refused at the root; keys fixed by us may use newDictionary() too.
    files: ['services/*/src/**/*.ts', 'packages/common/src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "VariableDeclarator[init.type='ObjectExpression'][init.properties.length=0] > Identifier.id > TSTypeAnnotation > TSTypeReference[typeName.name='Record'][typeArguments.params.0.type='TSStringKeyword']",
          message:
            'A Record<string, …> keyed by user strings inherits from Object.prototype: start it with newDictionary() from @acme/common (null prototype) or use a Map.',
        },
      ],
    },
  },
  {
    // auth-server's domain owns its types and repository interfaces; storage/ implements them and the
    // http side or app.ts wires them (STYLE.md: no express, pg or redis imports in domain/).
    files: ['services/auth-server/src/domain/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: ['express', 'pg', 'ioredis'].map((name) => ({
            name,
            message: 'domain/ stays free of express, pg and redis: depend on a domain interface instead.',
          })),
          patterns: [
            {
              group: ['**/storage', '**/storage/**', '**/http', '**/http/**'],
              message: 'domain/ must not import storage/ or http/: declare the interface in domain/.',
            },
          ],
        },
      ],
    },
  },
  {
    // search-store's layers (issue 19, DESIGN.md "Modules"): api/ routes → catalog/, write/, search/
    // use cases → query/, aggs/, script/ → index/, mapping/, analysis/ → storage/. Nothing below api/
    // imports it, the engine does not import the use cases, and index/ does not import the query side.
    files: ['services/search-store/src/*/**/*.ts'],
    ignores: ['services/search-store/src/api/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [NO_ROUTES],
        },
      ],
    },
  },
  {
    files: [
      'services/search-store/src/{query,aggs,script,index,mapping,analysis,storage,source,text}/**/*.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [NO_ROUTES, NO_USE_CASES],
        },
      ],
    },
  },
  {
    files: ['services/search-store/src/{index,mapping,analysis,storage}/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            NO_ROUTES,
            NO_USE_CASES,
            {
              group: ['**/query/**', '**/aggs/**'],
              message: 'index/ serves the query side: it offers readers, it does not import query/ or aggs/.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { module: 'writable', require: 'readonly', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.test.ts', '**/test/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.property.name='only']", message: 'no committed .only' },
      ],
    },
  },
);
