// The README examples: every ```js and ```ts block of the root README and of each package's
// README, with the marker above it (if any) and the packages it imports; written out as the
// files a user would save (an ES module to run, `.mts` and `.cts` to type-check).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { workspaceRoot } from './workspace.mjs';

/**
 * The marker, on the last non-blank line above a fence:
 *   <!-- example: no-run — why -->   type-checked, not run (it needs an MPI job, a GPU, …)
 *   <!-- example: skip — why -->     neither (a fragment of a program, not one)
 * The reason is required.
 */
const markerPattern = /^<!--\s*example:\s*(\S+)\s*(?:[—–-]+\s*(.*?))?\s*-->\s*$/;
export const markerKinds = ['no-run', 'skip'];

/** README.md files holding examples, relative to the workspace: the root's and each package's. */
export function readmeFiles() {
  const packages = readdirSync(join(workspaceRoot, 'packages'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `packages/${entry.name}/README.md`)
    .filter((file) => {
      try {
        readFileSync(join(workspaceRoot, file));
        return true;
      } catch {
        return false;
      }
    });
  return ['README.md', ...packages.sort()];
}

/** A short, unique, file-name-safe id for a block: `voro-1`, `root-1`. */
function idOf(readme, index) {
  const match = /^packages\/([^/]+)\/README\.md$/.exec(readme);
  return `${match ? match[1] : 'root'}-${index + 1}`;
}

/**
 * The js/ts blocks of one README: `{ id, readme, line (of the opening fence, 1-based), lang,
 * code, mark: undefined | { kind, reason } }`. A malformed marker (unknown kind, no reason) is
 * an Error naming the line.
 */
export function examplesOf(readme) {
  const lines = readFileSync(join(workspaceRoot, readme), 'utf8').split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)(```+|~~~+)\s*([\w-]*)/.exec(lines[i]);
    if (!fence) continue;
    const close = lines.findIndex((line, j) => j > i && line.trim().startsWith(fence[2]) && line.trim() === fence[2]);
    const end = close === -1 ? lines.length : close;
    const lang = fence[3].toLowerCase();
    if (['js', 'javascript', 'mjs', 'ts', 'typescript', 'mts'].includes(lang)) {
      let above = i - 1;
      while (above >= 0 && lines[above].trim() === '') above--;
      let mark;
      const found = above >= 0 ? markerPattern.exec(lines[above].trim()) : null;
      if (found) {
        if (!markerKinds.includes(found[1]) || !found[2]) {
          throw new Error(
            `${readme}:${above + 1}: the marker must read <!-- example: ${markerKinds.join('|')} — <why> -->, got ${lines[above].trim()}`,
          );
        }
        mark = { kind: found[1], reason: found[2] };
      }
      blocks.push({
        id: idOf(readme, blocks.length),
        readme,
        line: i + 1,
        lang: lang.startsWith('t') || lang === 'mts' ? 'ts' : 'js',
        code: lines.slice(i + 1, end).join('\n'),
        mark,
      });
    }
    i = end;
  }
  return blocks;
}

/** Every README's examples, in order. */
export function allExamples() {
  return readmeFiles().flatMap(examplesOf);
}

/** The package names a block imports (static and dynamic imports, `require`), builtins left out. */
export function importedPackages(code) {
  const names = new Set();
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;
  for (const [, specifier] of code.matchAll(pattern)) {
    if (specifier.startsWith('node:') || specifier.startsWith('.')) continue;
    const parts = specifier.split('/');
    names.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
  }
  return [...names].sort();
}

/** The packages a README tells the user to install: every name on its `npm install` lines. */
export function installedByReadme(readme) {
  const text = readFileSync(join(workspaceRoot, readme), 'utf8');
  const names = new Set();
  for (const [, args] of text.matchAll(/\bnpm (?:install|i)\b([^\n`]*)/g)) {
    for (const word of args.trim().split(/\s+/)) if (word !== '' && !word.startsWith('-')) names.add(word);
  }
  return names;
}

/** The block as an ES module Node runs: TypeScript's types stripped, the syntax left as written. */
export function runnableSource(block) {
  if (block.lang === 'js') return `${block.code}\n`;
  return ts.transpileModule(block.code, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ESNext, verbatimModuleSyntax: false },
    fileName: `${block.id}.mts`,
  }).outputText;
}

/** Whether a statement awaits at the top level (outside every function). */
function awaitsAtTopLevel(node) {
  let found = false;
  const visit = (child) => {
    if (found || ts.isFunctionLike(child) || ts.isClassLike(child)) return;
    if (ts.isAwaitExpression(child) || (ts.isForOfStatement(child) && child.awaitModifier)) found = true;
    else ts.forEachChild(child, visit);
  };
  visit(node);
  return found;
}

/**
 * The block as the two files a user could save: `mts` as written; `cts` the same as CommonJS,
 * where a top-level await is not allowed: the imports stay on top and, if the block awaits at
 * the top level, the rest goes into an async function that is called. `export {}` makes a
 * block without imports a module (scripts would share one global scope).
 */
export function typecheckSources(block) {
  const source = ts.createSourceFile(`${block.id}.mts`, block.code, ts.ScriptTarget.ESNext, true);
  const statements = source.statements;
  const imports = statements.filter((s) => ts.isImportDeclaration(s) || ts.isImportEqualsDeclaration(s));
  const rest = statements.filter((s) => !imports.includes(s));
  const text = (s) => block.code.slice(s.getFullStart(), s.getEnd());
  let cts = `${block.code}\nexport {};\n`;
  if (rest.some(awaitsAtTopLevel)) {
    const body = rest.map(text).join('').replace(/\n/g, '\n  ');
    cts = `${imports.map(text).join('')}\nasync function example() {${body}\n}\nvoid example();\nexport {};\n`;
  }
  return { mts: `${block.code}\nexport {};\n`, cts };
}
