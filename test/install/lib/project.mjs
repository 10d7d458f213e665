// A user's project outside the workspace: a package.json that depends on peclet packages by
// their tarballs, installed by one package manager with a PATH that holds no compiler.
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { run } from '@peclet/test-harness';
import { cleanEnv } from './env.mjs';

/** What building an addon from source would need; none may be on an install's PATH. */
export const compilerTools = ['g++', 'gcc', 'cc', 'c++', 'make', 'python3', 'python'];

/** Output of a package manager that ran, or asked to run, an install script or a native build. */
export const installScriptWarning =
  /install script|Ignored build scripts|approve-builds|allow-scripts|node-gyp|gyp info/i;

/** Where on `path` (a PATH value) `tool` is found, or undefined. */
export function findOnPath(tool, path) {
  for (const dir of path.split(delimiter)) {
    if (dir !== '' && existsSync(join(dir, tool))) return join(dir, tool);
  }
  return undefined;
}

/**
 * A folder holding only `node` (a link to `node`) and the package manager's launcher under
 * `command` (`npm`, `pnpm`): the PATH of a machine with Node and nothing else.
 */
export function makeBin(dir, { node, launcher, command }) {
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true });
    symlinkSync(node, join(dir, 'node'));
    symlinkSync(launcher, join(dir, command));
  }
  return dir;
}

/**
 * The peclet packages `names` need, through `dependencies` and `optionalDependencies`, read
 * from the packed manifests (`packed`: name → { manifest of the tarball }), `names` excluded
 * unless another one needs them.
 */
export function pecletClosure(names, packed) {
  const needed = new Set();
  const visit = (name) => {
    const { manifest } = packed.get(name);
    for (const dependency of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
      if (packed.has(dependency) && !needed.has(dependency)) {
        needed.add(dependency);
        visit(dependency);
      }
    }
  };
  for (const name of names) visit(name);
  return [...needed].sort();
}

/**
 * Writes a project at `dir` that depends on `dependencies` (names of packed packages) by
 * their tarballs, every other peclet package they need overridden to its tarball where
 * `manager.overrides` says; `replace` maps names to other tarballs (a repacked one).
 */
export function writeProject(dir, { manager, dependencies, packed, replace = {} }) {
  mkdirSync(dir, { recursive: true });
  const tarball = (name) => `file:${replace[name] ?? packed.get(name).file}`;
  const overrides = Object.fromEntries(pecletClosure(dependencies, packed).map((name) => [name, tarball(name)]));
  const pkg = {
    name: 'peclet-consumer',
    version: '1.0.0',
    private: true,
    dependencies: Object.fromEntries(dependencies.map((name) => [name, tarball(name)])),
  };
  if (manager.overrides === 'npm') pkg.overrides = overrides;
  if (manager.overrides === 'pnpm-field') pkg.pnpm = { overrides };
  if (manager.overrides === 'workspace-yaml') {
    // JSON strings are YAML strings.
    const lines = Object.entries(overrides).map(([name, spec]) => `  ${JSON.stringify(name)}: ${JSON.stringify(spec)}`);
    writeFileSync(join(dir, 'pnpm-workspace.yaml'), `overrides:\n${lines.join('\n')}\n`);
  }
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  return dir;
}

/** `<launcher> install ...args` in `dir` with PATH = `bin` only; the harness's result. */
export function install(dir, bin, command, args = []) {
  return run(join(bin, command), ['install', ...args], { cwd: dir, env: cleanEnv({ PATH: bin }), timeoutMs: 300_000 });
}

/** `<launcher> --version` with PATH = `bin` only. */
export function managerVersion(bin, command) {
  return run(join(bin, command), ['--version'], { cwd: bin, env: cleanEnv({ PATH: bin }), timeoutMs: 60_000 });
}

/** Writes `source` to `dir/file` and runs it with `node` (PATH = `bin`, plus `env`). */
export function runScript(dir, bin, node, file, source, env = {}) {
  writeFileSync(join(dir, file), source);
  return run(node, [file], { cwd: dir, env: cleanEnv({ PATH: bin, ...env }), timeoutMs: 300_000 });
}

/**
 * A CommonJS probe of what a project installed: the real directory of `name`, the real
 * path of its platform package's manifest as `name` resolves it (null when absent), and the
 * runtime the loader names in its errors.
 */
export function probeSource(name, platformName) {
  return `const { realpathSync } = require('node:fs');
const { createRequire } = require('node:module');
const { dirname } = require('node:path');
const manifest = realpathSync(require.resolve(${JSON.stringify(`${name}/package.json`)}));
let platform = null;
try {
  platform = realpathSync(createRequire(manifest).resolve(${JSON.stringify(`${platformName}/package.json`)}));
} catch {}
console.log(JSON.stringify({
  root: dirname(manifest),
  platform,
  node: process.versions.node,
  napi: process.versions.napi,
  glibc: process.report.getReport().header.glibcVersionRuntime,
}));
`;
}
