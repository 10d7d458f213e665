#!/usr/bin/env node
'use strict';
// peclet-platform-package <name>: copies the addon the package just built
// (native/build/Release/<name>.node) into its platform package for this
// machine (npm/<platform>/), the package that a registry install of the
// main package gets as an optional dependency. Run from the package root,
// after `peclet-gyp rebuild --directory native`.
//
//   "build": "tsup && peclet-gyp rebuild --directory native && peclet-platform-package voro"
const { copyFileSync, existsSync, readFileSync, renameSync } = require('node:fs');
const path = require('node:path');

const name = process.argv[2];
if (!name || !/^[a-z][a-z0-9_]*$/.test(name)) {
  console.error('usage: peclet-platform-package <addon name>');
  process.exit(2);
}

function platformKey() {
  const base = `${process.platform}-${process.arch}`;
  if (process.platform === 'linux') {
    const glibc = process.report.getReport().header.glibcVersionRuntime;
    return `${base}-${glibc ? 'gnu' : 'musl'}`;
  }
  return process.platform === 'win32' ? `${base}-msvc` : base;
}

const root = process.cwd();
const main = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const key = platformKey();
const dir = path.join(root, 'npm', key);
const built = path.join(root, 'native', 'build', 'Release', `${name}.node`);
if (!existsSync(built)) {
  console.error(`peclet-platform-package: ${built} is missing; build it first.`);
  process.exit(1);
}
if (!existsSync(path.join(dir, 'package.json'))) {
  console.warn(`peclet-platform-package: ${main.name} has no platform package for ${key} (npm/${key}); skipped.`);
  process.exit(0);
}
const platform = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
if (platform.name !== `${main.name}-${key}` || platform.version !== main.version) {
  console.error(
    `peclet-platform-package: npm/${key}/package.json is ${platform.name}@${platform.version}; expected ${main.name}-${key}@${main.version}.`,
  );
  process.exit(1);
}
// Copy then rename: a process that has the old binary open keeps its pages.
const target = path.join(dir, platform.main);
copyFileSync(built, `${target}.tmp`);
renameSync(`${target}.tmp`, target);
