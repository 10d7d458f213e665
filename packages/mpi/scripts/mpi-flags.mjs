#!/usr/bin/env node
// The compiler and linker flags of the system MPI, for native/binding.gyp: pkg-config's
// `ompi-c` (Open MPI), else `mpich`, else the wrapper compiler's own account of them
// (`mpicc --showme:compile` for Open MPI, `mpicc -compile_info` for MPICH).
//
//   node scripts/mpi-flags.mjs --cflags | --libs | --check
import { execFileSync } from 'node:child_process';

const want = process.argv[2];

function run(command, args) {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

function flags() {
  for (const pc of ['ompi-c', 'mpich']) {
    const cflags = run('pkg-config', ['--cflags', pc]);
    const libs = run('pkg-config', ['--libs', pc]);
    if (cflags !== undefined && libs !== undefined) return { cflags, libs, source: `pkg-config ${pc}` };
  }
  const compile = run('mpicc', ['--showme:compile']);
  const link = run('mpicc', ['--showme:link']);
  if (compile !== undefined && link !== undefined) return { cflags: compile, libs: link, source: 'mpicc --showme' };
  return undefined;
}

const found = flags();
if (want === '--check') {
  console.log(found ? `MPI found through ${found.source}` : 'no MPI found');
  process.exit(found ? 0 : 1);
}
if (found === undefined) {
  console.error(
    'peclet-mpi: no MPI found (neither pkg-config ompi-c nor mpicc). Install Open MPI: apt-get install openmpi-bin libopenmpi-dev',
  );
  process.exit(1);
}
console.log(want === '--libs' ? found.libs : found.cflags);
