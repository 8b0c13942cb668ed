// ESLint: typescript-eslint's type-checked rules over the TypeScript (src, tests, bench, the configs),
// with no warning allowed (npm run lint runs it with --max-warnings 0). Formatting is Prettier's.
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "plugins/**", "tests/fixtures/**", "**/*.mjs", "**/*.cjs", "**/*.js"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: "./tsconfig.eslint.json", tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
      "@typescript-eslint/no-floating-promises": "error",
      // A leading underscore names what a destructuring leaves out on purpose.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Tests and the bench read what the product prints: JSON lines, MCP results, state files. They
    // hold them as parsed values (any) and let expect() check the shape, so the no-unsafe-* family,
    // which asks for a type on every read of such a value, is off there; every other type-checked
    // rule stays on.
    files: ["tests/**/*.ts", "bench/**/*.ts"],
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
    },
  },
  prettier,
);
