// ESLint over the package's TypeScript sources (src/), with ESLint's and typescript-eslint's
// recommended rules. Run by the wasm suite (scripts/suites/wasm.sh); versions are pinned in
// package.json's devDependencies.
//
// Not the type-checked rule sets: they need src/wasm/, which bindings/js/build.sh generates
// from the wasm build, so they would lint nothing true on a clean checkout; `tsc --strict`
// (the package's build and its consumer test) already checks the types.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {ignores: ['dist/**', 'src/wasm/**', 'test/**', 'bench/**', 'node_modules/**', 'eslint.config.js']},
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // `const {dropped: _dropped, ...rest} = obj` is how a field is left out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', {ignoreRestSiblings: true}],
    },
  },
);
