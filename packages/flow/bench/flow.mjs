// Speed of @peclet/flow beside references measured in the same run, on the same threads:
//   - a STREAM-like triad (the memory roofline),
//   - a straightforward two-lattice D3Q19 kernel (native-test/bench.cpp: dense, pull, no tricks),
//   - peclet/flow on a dense periodic box and on the Berea sandstone (sparse layout).
// Prints MLUPS (MFLUPS: fluid nodes only), bytes moved per update, the bandwidth achieved as a
// fraction of the triad's and the ratios. Usage:
//   pnpm --filter @peclet/flow bench [-- --n 256 --steps 5 --peclet-steps 20]
// The reference kernel is timed over --steps steps; peclet/flow over --peclet-steps steps in one
// run() call (each call ends with one pass over the state to measure its moments, as run()'s
// convergence checks do every 100 steps by default).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Lattice } from '../dist/index.js';
import { berea } from '../test/helpers.mjs';

const here = import.meta.dirname ?? new URL('.', import.meta.url).pathname;
const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '256' },
    steps: { type: 'string', default: '5' },
    'peclet-steps': { type: 'string', default: '20' },
  },
});
const n = Number(values.n);
const steps = Number(values.steps);
const pecletSteps = Number(values['peclet-steps']);
const threadCounts = [1, 2];

execFileSync('make', ['-C', join(here, '..', 'native-test'), 'bench'], { stdio: 'ignore' });
const binary = join(here, '..', 'native-test', 'build', 'bench');
const native = (...args) => JSON.parse(execFileSync(binary, args.map(String), { encoding: 'utf8' }).trim());

const row = (cells) => console.log(cells.map((c, i) => String(c).padEnd(i === 0 ? 44 : 14)).join(''));
const fixed = (x, d = 1) => x.toFixed(d);

console.log(
  `@peclet/flow benchmark — D3Q19, ${steps} steps per reference figure, ${pecletSteps} per peclet/flow figure ` +
    `(one run() call), ${new Date().toISOString()}\n`,
);
const triad = Object.fromEntries(threadCounts.map((t) => [t, native('triad', 1600, t).bandwidth]));
for (const t of threadCounts) console.log(`triad, ${t} thread(s): ${fixed(triad[t] / 1e9)} GB/s`);
console.log('');

// `pecletSteps` steps in one run() (one call: the moments of the state reached are measured once, as
// every call does; a synchronous step(n) would also copy the state to restore on divergence).
async function timedSteps(lattice) {
  lattice.step(1); // first touch
  const start = performance.now();
  await lattice.run({ maxSteps: pecletSteps, tolerance: 0, checkInterval: pecletSteps });
  return (performance.now() - start) / 1e3;
}

async function pecletDense(precision, threads) {
  const lattice = new Lattice({ shape: [n, n, n], bodyForce: [1e-6, 0, 0], precision, threads, inertia: true });
  try {
    const seconds = await timedSteps(lattice);
    return { mlups: (lattice.info.fluidNodes * pecletSteps) / seconds / 1e6, bytes: lattice.info.bytesPerUpdate };
  } finally {
    lattice.release();
  }
}

row(['dense periodic box ' + `${n}³`, 'MLUPS', 'B/update', 'GB/s', 'of triad', '× reference']);
const scaling = {};
for (const precision of ['f64', 'f32']) {
  for (const t of threadCounts) {
    const reference = native('reference', n, t, precision, steps);
    const peclet = await pecletDense(precision, t);
    scaling[`${precision}${t}`] = peclet.mlups;
    const bandwidth = peclet.mlups * 1e6 * peclet.bytes;
    row([
      `reference kernel, ${precision}, ${t} thread(s)`,
      fixed(reference.mlups),
      reference.bytesPerUpdate,
      fixed((reference.mlups * 1e6 * reference.bytesPerUpdate) / 1e9),
      `${fixed((100 * reference.mlups * 1e6 * reference.bytesPerUpdate) / triad[t])}%`,
      '1.00',
    ]);
    row([
      `peclet/flow, ${precision}, ${t} thread(s)`,
      fixed(peclet.mlups),
      peclet.bytes,
      fixed(bandwidth / 1e9),
      `${fixed((100 * bandwidth) / triad[t])}%`,
      fixed(peclet.mlups / reference.mlups, 2),
    ]);
  }
}
for (const precision of ['f64', 'f32']) {
  console.log(`scaling 1 → 2 threads, ${precision}: ${fixed(scaling[`${precision}2`] / scaling[`${precision}1`], 2)}×`);
}

// Berea: the sparse layout updates the 20% of voxels that are pore; the dense reference updates
// every voxel. Same physics, same number of steps to converge: the time per step is the ratio of
// the times to solution.
console.log('');
const image = berea();
const t = threadCounts.at(-1);
row([`Berea sandstone 200³, ${t} threads`, 'MFLUPS', 'B/update', 's/step', '', '× reference']);
const reference = native('reference', 200, t, 'f64', steps);
const referenceStep = reference.seconds / steps;
for (const precision of ['f64', 'f32']) {
  const lattice = new Lattice({
    ...image,
    bodyForce: [1e-6, 0, 0],
    periodic: [true, false, false],
    precision,
    inertia: false,
  });
  try {
    const perStep = (await timedSteps(lattice)) / pecletSteps;
    row([
      `peclet/flow ${lattice.info.layout}, ${precision}`,
      fixed(lattice.info.fluidNodes / perStep / 1e6),
      lattice.info.bytesPerUpdate,
      fixed(perStep, 3),
      '',
      fixed(referenceStep / perStep, 2),
    ]);
  } finally {
    lattice.release();
  }
}
row([
  `reference kernel, dense f64 (all 8,000,000 voxels)`,
  fixed(reference.mlups),
  reference.bytesPerUpdate,
  fixed(referenceStep, 3),
  '',
  '1.00',
]);
