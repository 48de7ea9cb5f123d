import effect from "@effect/eslint-plugin"
import js from "@eslint/js"
import tseslint from "typescript-eslint"

export default tseslint.config(
  {
    ignores: [
      "**/dist/**",
      "**/build/**",
      "**/.tsbuild/**",
      "**/node_modules/**",
      "**/*.d.ts",
      "**/.stryker-tmp/**",
      "**/reports/**"
    ]
  },
  js.configs.recommended,
  ...tseslint.configs.strict,
  ...effect.configs.dprint,
  {
    languageOptions: {
      parser: tseslint.parser,
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { process: "readonly", console: "readonly", Buffer: "readonly", URL: "readonly" }
    },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-namespace": "off",
      "@typescript-eslint/no-empty-object-type": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: "Read time from Effect's Clock, never Date.now()."
        },
        {
          selector: "CallExpression[callee.name='setTimeout']",
          message: "Wait with Effect.sleep, never setTimeout."
        }
      ],
      "@effect/dprint": [
        "error",
        {
          config: {
            indentWidth: 2,
            lineWidth: 120,
            semiColons: "asi",
            quoteStyle: "alwaysDouble",
            trailingCommas: "never",
            operatorPosition: "maintain",
            "arrowFunction.useParentheses": "force"
          }
        }
      ]
    }
  },
  {
    files: ["scripts/**/*.ts", "packages/*/test/**/*.ts", "examples/**/*.ts"],
    rules: { "no-restricted-syntax": "off" }
  }
)
