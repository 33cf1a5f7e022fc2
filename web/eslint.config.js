import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

// Areas (site, borrower, console) import from `@/shared`, never from each other; shared imports no area.
const areaRule = (...forbidden) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: forbidden.map((area) => ({
        group: [`@/${area}`, `@/${area}/*`],
        message: `Areas import from @/shared only; move what both need into src/shared.`,
      })),
    },
  ],
});

export default tseslint.config(
  { ignores: ['dist', '.ssr', 'node_modules', 'src/shared/api/schema.d.ts'] },
  {
    files: ['**/*.{ts,tsx}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended, reactHooks.configs.flat.recommended],
    languageOptions: { ecmaVersion: 2022, globals: globals.browser },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
    },
  },
  { files: ['src/site/**'], rules: areaRule('borrower', 'console') },
  { files: ['src/borrower/**'], rules: areaRule('site', 'console') },
  { files: ['src/console/**'], rules: areaRule('site', 'borrower') },
  { files: ['src/shared/**'], rules: areaRule('site', 'borrower', 'console') },
  {
    files: ['**/*.test.{ts,tsx}', 'src/test/**'],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
  },
  {
    files: ['scripts/**/*.mjs', 'art/**/*.mjs', 'eslint.config.js'],
    extends: [js.configs.recommended],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: globals.node },
  },
  {
    files: ['src/service-worker/**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { ecmaVersion: 2022, sourceType: 'script', globals: globals.serviceworker },
  },
);
