/**
 * Checks that every export of the public packages' modules (not `src/internal/`) has a JSDoc with
 * `@since` and `@category` — `@effect/docgen` enforces only `@since`. Namespace re-exports
 * (`export * as X from …`) need only `@since`.
 *
 * `node scripts/dist/smoke/jsdoc.js` — exits 1 and lists the gaps.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const packages = ["a2a", "a2a-testing", "a2a-redis", "cli"]

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name)
    if (statSync(full).isDirectory()) return name === "internal" ? [] : sourceFiles(full)
    return name.endsWith(".ts") && !name.endsWith(".d.ts") ? [full] : []
  })

const isExported = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)

const nameOf = (node: ts.Statement): string => {
  if (ts.isVariableStatement(node)) {
    return node.declarationList.declarations.map((d) => d.name.getText()).join(", ")
  }
  if (ts.isExportDeclaration(node)) return node.getText().split("\n")[0] ?? ""
  const named = ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node) ||
    ts.isTypeAliasDeclaration(node) || ts.isEnumDeclaration(node) || ts.isModuleDeclaration(node)
  return named && node.name !== undefined ? node.name.getText() : ts.SyntaxKind[node.kind]
}

const tagsOf = (node: ts.Node): Set<string> => new Set(ts.getJSDocTags(node).map((tag) => tag.tagName.text))

const gaps: Array<string> = []
for (const pkg of packages) {
  for (const file of sourceFiles(path.join(root, "packages", pkg, "src"))) {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true)
    for (const statement of source.statements) {
      const reExport = ts.isExportDeclaration(statement)
      if (!reExport && !isExported(statement)) continue
      const namespace = reExport && statement.exportClause !== undefined && ts.isNamespaceExport(statement.exportClause)
      // `getJSDocTags` finds the JSDoc of a variable through its declaration
      const target = ts.isVariableStatement(statement)
        ? statement.declarationList.declarations[0] ?? statement
        : statement
      const tags = tagsOf(target)
      const missing = [
        ...(tags.has("since") ? [] : ["@since"]),
        ...(namespace || tags.has("category") ? [] : ["@category"])
      ]
      if (missing.length > 0) {
        const { line } = source.getLineAndCharacterOfPosition(statement.getStart())
        gaps.push(`${path.relative(root, file)}:${line + 1} ${nameOf(statement)}: no ${missing.join(", ")}`)
      }
    }
  }
}

if (gaps.length > 0) {
  console.error(`JSDoc gaps (every export needs @since and @category):\n  ${gaps.join("\n  ")}`)
  process.exitCode = 1
} else {
  console.log(`JSDoc: every export of ${packages.join(", ")} has @since and @category`)
}
