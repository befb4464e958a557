import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const crossFeatureRepository = {
  regex: '^\\.\\./.*-repository\\.js$',
  message: "Another feature's repository: declare a port for what you need and have compose-services.ts wire it.",
};
const subFeatureRepository = {
  regex: '^\\./.+/.*-repository\\.js$',
  message: "A sub-feature's repository: only its composition (create-*.ts) builds it.",
};

export default tseslint.config(
  { ignores: ['dist/', 'clients/node/dist/', 'coverage/', '.tap/', 'node_modules/', 'data/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  // A feature's repository is its own: other features reach it through a port they declare, wired in
  // compose-services.ts. Only a sub-feature's composition (a create-*.ts one folder up) builds it.
  {
    files: ['server/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [crossFeatureRepository, subFeatureRepository] }] },
  },
  {
    files: ['server/**/create-*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [crossFeatureRepository] }] },
  },
  {
    files: ['**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', fetch: 'readonly' } },
  },
  // The client's examples print what they read.
  {
    files: ['clients/node/examples/**/*.js'],
    rules: { 'no-console': 'off' },
  },
  // CommonJS where a tool loads modules with require() (ts-node's transpiler).
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', exports: 'writable', __dirname: 'readonly', process: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
