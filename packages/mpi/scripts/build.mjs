#!/usr/bin/env node
// The native half of `pnpm build` for @peclet/mpi: compiled against the system MPI when there
// is one, else skipped with a line saying what to install (the other packages build and test
// without MPI; @peclet/mpi then says at first use that it was not built).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const check = spawnSync(process.execPath, [join(root, 'scripts', 'mpi-flags.mjs'), '--check'], { encoding: 'utf8' });
if (check.status !== 0) {
  console.log(
    '@peclet/mpi: no system MPI, native build skipped (apt-get install openmpi-bin libopenmpi-dev, then build again)',
  );
  process.exit(0);
}
console.log(`@peclet/mpi: ${check.stdout.trim()}; building native/ against it`);
// core's peclet-gyp: node-gyp with the headers of the Node that runs it.
const core = dirname(createRequire(join(root, 'package.json')).resolve('@peclet/core/package.json'));
const gyp = spawnSync(
  process.execPath,
  [join(core, 'gyp', 'build.js'), 'rebuild', '-j', '2', '--directory', 'native'],
  {
    cwd: root,
    stdio: 'inherit',
  },
);
if (gyp.error) console.error(`@peclet/mpi: ${gyp.error.message}`);
process.exit(gyp.status ?? 1);
