#!/usr/bin/env node
// Checks every publishable package.json of the workspace (every one that is
// not private) for what a registry install relies on:
// - no install hook (preinstall, install, postinstall, prepare) and no
//   binding.gyp at the package root: either makes package managers compile
//   at install, warn about an unapproved script, or refuse the package;
// - license, repository, README.md, and `files`;
// - a solver package (one with native/binding.gyp) lists each of its
//   platform packages (npm/<platform>/) as a workspace optional dependency,
//   which `pnpm pack` turns into the exact version; one built against a
//   system library instead says why in "peclet": { "buildFromSource" };
// - a platform package has os, cpu (and libc on Linux), `main` naming its
//   .node, no scripts, no dependencies, and its main package's version.
//
//   node scripts/lint-packages.mjs [workspace root]
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = process.argv[2] ? resolve(process.argv[2]) : join(fileURLToPath(import.meta.url), '..', '..');
const hooks = ['preinstall', 'install', 'postinstall', 'prepare'];
const problems = [];

const read = (file) => JSON.parse(readFileSync(file, 'utf8'));
const dirs = (parent) =>
  existsSync(parent)
    ? readdirSync(parent, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => join(parent, e.name))
    : [];

function checkPublishable(dir, pkg) {
  const at = relative(repo, dir);
  const fail = (what) => problems.push(`${at}/package.json (${pkg.name}): ${what}`);
  for (const hook of hooks) {
    if (pkg.scripts?.[hook] !== undefined) fail(`has a "${hook}" script; published packages run nothing at install`);
  }
  if (existsSync(join(dir, 'binding.gyp'))) {
    fail('has binding.gyp at its root, which package managers build at install; move it under native/');
  }
  if (pkg.gypfile) fail('sets "gypfile"; package managers would build it at install');
  if (typeof pkg.license !== 'string') fail('has no "license"');
  if (typeof pkg.repository?.url !== 'string' || pkg.repository?.directory !== at) {
    fail(`"repository" must give the url and "directory": "${at}"`);
  }
  if (!existsSync(join(dir, 'README.md'))) fail('has no README.md');
  if (!Array.isArray(pkg.files) || pkg.files.length === 0) fail('has no "files" list');
  if (pkg.publishConfig?.access !== 'public') fail('needs "publishConfig": { "access": "public" } (a scoped package)');
}

function checkPlatformPackage(dir, pkg, main, platform) {
  const at = relative(repo, dir);
  const fail = (what) => problems.push(`${at}/package.json (${pkg.name}): ${what}`);
  if (pkg.name !== `${main.name}-${platform}`) fail(`must be named ${main.name}-${platform}`);
  if (pkg.version !== main.version) fail(`version ${pkg.version} differs from ${main.name} ${main.version}`);
  for (const field of ['os', 'cpu']) {
    if (!Array.isArray(pkg[field]) || pkg[field].length === 0) fail(`has no "${field}"`);
  }
  if (platform.startsWith('linux-') && (!Array.isArray(pkg.libc) || pkg.libc.length === 0)) fail('has no "libc"');
  if (typeof pkg.main !== 'string' || !pkg.main.endsWith('.node')) fail('"main" must name its .node file');
  if (pkg.scripts !== undefined && Object.keys(pkg.scripts).length > 0) fail('has scripts');
  for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies']) {
    if (pkg[field] !== undefined && Object.keys(pkg[field]).length > 0) fail(`has ${field}`);
  }
  if (main.optionalDependencies?.[pkg.name] !== 'workspace:*') {
    problems.push(
      `${relative(repo, join(dir, '..', '..'))}/package.json (${main.name}): must list ${pkg.name} in optionalDependencies as "workspace:*"`,
    );
  }
}

const workspaces = [...dirs(join(repo, 'packages')), ...dirs(join(repo, 'apps')), ...dirs(join(repo, 'test'))];
let checked = 0;
for (const dir of workspaces) {
  if (!existsSync(join(dir, 'package.json'))) continue;
  const pkg = read(join(dir, 'package.json'));
  if (pkg.private === true) continue;
  checkPublishable(dir, pkg);
  checked += 1;
  const platforms = dirs(join(dir, 'npm')).filter((d) => existsSync(join(d, 'package.json')));
  // A package built against a system library (the system MPI) has no prebuilt addon and
  // says why in "peclet": { "buildFromSource": "<reason>" }.
  const fromSource = typeof pkg.peclet?.buildFromSource === 'string' && pkg.peclet.buildFromSource !== '';
  if (existsSync(join(dir, 'native', 'binding.gyp')) && platforms.length === 0 && !fromSource) {
    problems.push(`${relative(repo, dir)}: has native/binding.gyp but no platform package under npm/`);
  }
  for (const platformDir of platforms) {
    const platformPkg = read(join(platformDir, 'package.json'));
    checkPublishable(platformDir, platformPkg);
    checkPlatformPackage(platformDir, platformPkg, pkg, relative(join(dir, 'npm'), platformDir));
    checked += 1;
  }
}

if (problems.length > 0) {
  console.error(`lint-packages: ${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`lint-packages: ${checked} publishable packages: no install hook, no root binding.gyp, metadata complete`);
