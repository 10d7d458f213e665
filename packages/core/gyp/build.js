#!/usr/bin/env node
'use strict';
// peclet-gyp: runs the calling package's node-gyp with the arguments given,
// pointing it at the headers of the Node that runs it when they are installed
// beside it (<prefix>/include/node). node-gyp would otherwise try to download
// them, which fails on machines without that network access.
//
//   "build:native": "peclet-gyp rebuild"
const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

const args = process.argv.slice(2);
const prefix = path.dirname(path.dirname(process.execPath));
const configured = process.env.npm_config_nodedir || args.some((a) => a.startsWith('--nodedir'));
if (!configured && existsSync(path.join(prefix, 'include', 'node', 'common.gypi'))) {
  args.push(`--nodedir=${prefix}`);
}
let nodeGyp;
try {
  nodeGyp = require.resolve('node-gyp/bin/node-gyp.js', { paths: [process.cwd(), __dirname] });
} catch {
  console.error('peclet-gyp: node-gyp is not installed; add it to the devDependencies of this package.');
  process.exit(1);
}
const result = spawnSync(process.execPath, [nodeGyp, ...args], { stdio: 'inherit' });
process.exit(result.status ?? 1);
