/* global module */
// The import rule of the README's test command: no circle among any package's source modules, nor among the
// scripts (bench, mutation check, smoke test, demo). Type-only imports count (a circle of types is a circle).
/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "An import circle: move what both sides need into a leaf module.",
      from: { path: "^(packages/[^/]+/src|scripts)/" },
      to: { circular: true }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(dist|node_modules|test)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" }
  }
}
