// Maintainer measures of src/ (not part of the build): files and lines, the longest functions and files,
// and the names the package root exports. Usage: node scripts/code-measures.mjs [--json]
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = new URL('..', import.meta.url).pathname;
const isSource = (name) =>
  name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts');

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (isSource(entry.name)) yield path;
  }
}

const isFunctionLike = (node) =>
  ts.isFunctionDeclaration(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isArrowFunction(node) ||
  ts.isFunctionExpression(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessor(node);

const files = [];
const functions = [];
for (const path of walk(join(root, 'src'))) {
  const text = readFileSync(path, 'utf8');
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const name = relative(root, path);
  files.push({ name, lines: text.split('\n').length });
  const visit = (node) => {
    if (isFunctionLike(node) && node.body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const label = node.name?.getText?.(source) ?? '(anonymous)';
      functions.push({ where: `${name}:${start + 1} ${label}`, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

const index = readFileSync(join(root, 'src/index.ts'), 'utf8');
const exported = new Set();
for (const block of index.matchAll(/export(?: type)? \{([^}]*)\}/g))
  for (const part of block[1].split(','))
    if (part.trim())
      exported.add(
        part
          .trim()
          .replace(/^type /, '')
          .split(' as ')
          .pop(),
      );

functions.sort((a, b) => b.lines - a.lines);
files.sort((a, b) => b.lines - a.lines);
const summary = {
  sourceFiles: files.length,
  sourceLines: files.reduce((sum, file) => sum + file.lines, 0),
  functions: functions.length,
  functionsOver40Lines: functions.filter((f) => f.lines > 40).length,
  longestFunctions: functions.slice(0, 5),
  filesOver300Lines: files.filter((f) => f.lines > 300).length,
  longestFiles: files.slice(0, 5),
  rootExports: exported.size,
};
process.stdout.on('error', () => process.exit(0)); // a closed pipe (`| head`) ends quietly
const print = (line) => process.stdout.write(`${line}\n`);
if (process.argv.includes('--json')) print(JSON.stringify(summary, null, 2));
else {
  print(
    `${summary.sourceFiles} source files, ${summary.sourceLines} lines, ${summary.functions} functions (${summary.functionsOver40Lines} over 40 lines), ${summary.filesOver300Lines} files over 300 lines, ${summary.rootExports} root exports`,
  );
  for (const f of summary.longestFunctions) print(`  function ${f.lines} lines  ${f.where}`);
  for (const f of summary.longestFiles) print(`  file ${f.lines} lines  ${f.name}`);
}
