// @ts-check
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

const layers = ['config', 'transport', 'rest', 'clientset', 'runtime'];

/** Each layer may import itself and the layers below it, never one above. */
const layerConstraints = layers.map((layer, index) => ({
  sourceTag: `layer:${layer}`,
  onlyDependOnLibsWithTags: layers.slice(0, index + 1).map((below) => `layer:${below}`),
}));

const appAndToolConstraints = [
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: [...layers.map((l) => `layer:${l}`)] },
  {
    sourceTag: 'type:tool',
    onlyDependOnLibsWithTags: [...layers.map((l) => `layer:${l}`), 'type:tool'],
  },
];

/**
 * @k/envtest (`type:testing`) sits above @k/clientset and beside @k/runtime: it hands out ready
 * clientsets, so the layers below it cannot test with it (that would be a cycle in the task graph).
 */
const testingConstraint = {
  sourceTag: 'type:testing',
  onlyDependOnLibsWithTags: [
    ...layers.filter((l) => l !== 'runtime').map((l) => `layer:${l}`),
    'type:tool',
  ],
};

/** Sources whose tests may use @k/envtest: the runtime, apps and tools (never a lower layer). */
const mayTestWithEnvtest = new Set(['layer:runtime', 'type:app', 'type:tool', 'type:testing']);

/** Tests may also use tools (the real control plane from tools/testenv) and, above clientset, @k/envtest. */
const testConstraints = [...layerConstraints, ...appAndToolConstraints, testingConstraint].map(
  (constraint) => ({
    ...constraint,
    onlyDependOnLibsWithTags: [
      ...constraint.onlyDependOnLibsWithTags,
      'type:tool',
      ...(mayTestWithEnvtest.has(constraint.sourceTag) ? ['type:testing'] : []),
    ],
  }),
);

/** Lower layers that higher ones load on first use (to keep import cost low) and also import statically. */
const lazyLoadedLayers = [
  '@k/config',
  '@k/config/edit',
  '@k/config/yaml-guards',
  '@k/transport',
  '@k/rest',
];

const TRANSPORT_CONFIG_RULE =
  "@k/transport imports only types and '@k/config/errors' from @k/config (inject what needs more)";

const testFiles = ['**/*.test.ts', '**/*.test-d.ts', '**/e2e/**/*.ts', '**/__fixtures__/**'];

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/.nx/**',
      '**/coverage/**',
      '**/generated/**',
      '.tmp/**',
      'bench/.tmp-*/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.ts', '*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          allow: [],
          checkDynamicDependenciesExceptions: lazyLoadedLayers,
          depConstraints: [...layerConstraints, ...appAndToolConstraints, testingConstraint],
        },
      ],
    },
  },
  {
    files: testFiles,
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          allow: [],
          checkDynamicDependenciesExceptions: lazyLoadedLayers,
          depConstraints: testConstraints,
        },
      ],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // An app's local launcher (`npm start`) may start the local control plane of tools/testenv.
    files: ['apps/*/local/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          allow: [],
          checkDynamicDependenciesExceptions: lazyLoadedLayers,
          depConstraints: testConstraints,
        },
      ],
    },
  },
  {
    // The runtime's and the demo's e2e tests use @k/envtest as users do, never the private engine.
    files: ['packages/runtime/e2e/**/*.ts', 'apps/demo-operator/e2e/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@k/testenv', '@k/testenv/*'],
              message: "use @k/envtest's public API (it is what users test with)",
            },
          ],
        },
      ],
    },
  },
  {
    // Benchmarks measure what users call, @k/envtest included.
    files: ['bench/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          allow: [],
          checkDynamicDependenciesExceptions: lazyLoadedLayers,
          depConstraints: testConstraints,
        },
      ],
    },
  },
  {
    // Examples are written as a user would: importing the package by its name.
    files: ['**/examples/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          allow: [
            '@k/config',
            '@k/transport',
            '@k/rest',
            '@k/clientset',
            '@k/runtime',
            '@k/codegen',
            '@k/envtest',
          ],
          checkDynamicDependenciesExceptions: lazyLoadedLayers,
          depConstraints: [...layerConstraints, ...appAndToolConstraints, testingConstraint],
        },
      ],
    },
  },
  {
    // @k/transport neither reads nor writes kubeconfig files: from @k/config it takes types and
    // the error base (`@k/config/errors`) only; a persister for refreshed tokens is injected.
    files: ['packages/transport/src/**/*.ts'],
    ignores: testFiles,
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ name: '@k/config', allowTypeImports: true, message: TRANSPORT_CONFIG_RULE }],
          patterns: [
            {
              group: ['@k/config/*', '!@k/config/errors'],
              allowTypeImports: true,
              message: TRANSPORT_CONFIG_RULE,
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'ImportExpression[source.value=/^@k.config/]', message: TRANSPORT_CONFIG_RULE },
      ],
    },
  },
  {
    // Node 20 holds the sources of AbortSignal.any weakly: after a GC an AbortSignal.timeout
    // among them is collected and the combined signal never aborts (a timeout that never comes).
    files: ['**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'AbortSignal',
          property: 'any',
          message: 'use linkSignals (@k/transport, also exported by @k/rest)',
        },
      ],
    },
  },
  {
    // Build and test configs import the shared root presets, which belong to no project.
    files: ['**/vitest.config.ts', '**/tsup.config.ts', '*.ts'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  prettier,
);
