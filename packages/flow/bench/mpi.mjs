// Scaling of @peclet/flow over MPI ranks on the Berea sandstone (f32, sparse layout), beside
// the same lattice in one process on as many threads, measured in the same run:
//   strong: the whole 200³ sample on 1 rank × T threads (no MPI) and on R ranks × 1 thread;
//   weak:   100 planes per rank (the first 100·R planes of the sample) on R ranks × 1 thread;
// with the share of each step spent in the halo exchange (sending and receiving the edge planes,
// waiting for the neighbour included). Usage:
//   pnpm --filter @peclet/flow bench:mpi [-- --ranks 1,2 --steps 100 --repeat 3]
// Each figure is the best of --repeat runs (this machine is shared: runs vary by ±10%), each of
// --steps steps in one run() call (one convergence check, as run() and permeability() check every
// 100 steps by default).
// On a machine with more cores, --ranks 1,2,4,8 prints the same table for more ranks (each rank
// one core: --oversubscribe is passed, so more ranks than cores run, but slowly).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const here = import.meta.dirname ?? new URL('.', import.meta.url).pathname;
const { values } = parseArgs({
  options: {
    ranks: { type: 'string', default: '1,2' },
    steps: { type: 'string', default: '100' },
    repeat: { type: 'string', default: '3' },
  },
});
const rankCounts = values.ranks.split(',').map(Number);
const steps = values.steps;
const mpirun = ['/usr/bin/mpirun', '/usr/local/bin/mpirun'].find((p) => existsSync(p));
if (!mpirun) {
  console.error('bench:mpi: no mpirun (bash scripts/system-deps.sh installs Open MPI)');
  process.exit(1);
}
const env = { ...process.env, OMPI_ALLOW_RUN_AS_ROOT: '1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1' };
const script = join(here, 'mpi-rank.mjs');

function measure(ranks, threads, n0) {
  let best;
  for (let i = 0; i < Number(values.repeat); i++) {
    const m = once(ranks, threads, n0);
    if (best === undefined || m.mflups > best.mflups) best = m;
  }
  return best;
}

function once(ranks, threads, n0) {
  const args = [script, '--n0', String(n0), '--threads', String(threads), '--steps', steps];
  const out =
    ranks === 0
      ? execFileSync(process.execPath, args, { encoding: 'utf8', env })
      : execFileSync(
          mpirun,
          ['--oversubscribe', '--bind-to', 'none', '-n', String(ranks), process.execPath, ...args, '--mpi'],
          {
            encoding: 'utf8',
            env,
          },
        );
  const rows = out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
  const seconds = Math.max(...rows.map((r) => r.seconds));
  const pores = rows.reduce((s, r) => s + r.pores, 0);
  const halo = Math.max(...rows.map((r) => r.haloSeconds / (r.stepSeconds + r.haloSeconds)));
  return { mflups: (pores * Number(steps)) / seconds / 1e6, halo, seconds };
}

const row = (cells) => console.log(cells.map((c, i) => String(c).padEnd(i === 0 ? 34 : 16)).join(''));
console.log(
  `@peclet/flow over MPI — Berea sandstone, f32 sparse, ${steps} timed steps per figure (best of ${values.repeat}), ` +
    `${cpus().length} CPUs visible, ${new Date().toISOString()}\n`,
);
console.log('Strong scaling: the whole 200³ sample');
row(['configuration', 'MFLUPS', 'halo share', 'vs 1 process']);
const baseline = {};
for (const threads of [...new Set([1, ...rankCounts])]) {
  baseline[threads] = measure(0, threads, 200);
  row([`1 process × ${threads} thread(s), no MPI`, baseline[threads].mflups.toFixed(1), '-', '1.00']);
}
for (const ranks of rankCounts) {
  const m = measure(ranks, 1, 200);
  row([
    `${ranks} rank(s) × 1 thread`,
    m.mflups.toFixed(1),
    `${(100 * m.halo).toFixed(1)}%`,
    `${(m.mflups / baseline[ranks].mflups).toFixed(2)} of ${ranks} thread(s)`,
  ]);
}
console.log('\nWeak scaling: 100 planes (100 × 200 × 200 voxels) per rank');
row(['configuration', 'MFLUPS', 'halo share', 'efficiency']);
let single;
for (const ranks of rankCounts) {
  const m = measure(ranks, 1, 100 * ranks);
  single ??= m.mflups / ranks;
  row([
    `${ranks} rank(s) × 1 thread`,
    m.mflups.toFixed(1),
    `${(100 * m.halo).toFixed(1)}%`,
    (m.mflups / ranks / single).toFixed(2),
  ]);
}
