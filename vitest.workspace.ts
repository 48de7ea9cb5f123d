export default ["packages/*/vitest.config.ts", "examples/vitest.config.ts", "scripts/vitest.config.ts"]
