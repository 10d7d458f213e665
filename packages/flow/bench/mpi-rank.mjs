// One rank of bench/mpi.mjs: planes [0, n0) of the Berea sample (its rank's share of them with
// --mpi), periodic, driven by a body force; `steps` steps after a warm-up, timed. Prints one
// JSON line per rank.
import { parseArgs } from 'node:util';
import { Lattice, slabPlanes } from '../dist/index.js';
import { berea } from '../test/helpers.mjs';

const { values } = parseArgs({
  options: {
    n0: { type: 'string', default: '200' },
    threads: { type: 'string', default: '1' },
    steps: { type: 'string', default: '40' },
    precision: { type: 'string', default: 'f32' },
    mpi: { type: 'boolean', default: false },
  },
});
const n0 = Number(values.n0);
const steps = Number(values.steps);
const image = berea();
const [, n1, n2] = image.shape;
const n12 = n1 * n2;
let mpi;
let planes = { start: 0, count: n0 };
if (values.mpi) {
  mpi = await import('@peclet/mpi');
  mpi.init();
  // Balanced by pore voxels (the sparse layout's work), as slabOf() splits an image.
  const weights = new Float64Array(n0);
  for (let v = 0; v < n0 * n12; v++) if (image.solid[v] === 0) weights[Math.floor(v / n12)]++;
  planes = slabPlanes(n0, mpi, { weights });
}
const solid = image.solid.subarray(planes.start * n12, (planes.start + planes.count) * n12);
let pores = 0;
for (const v of solid) pores += v === 0 ? 1 : 0;
const lattice = new Lattice({
  shape: [planes.count, n1, n2],
  solid,
  bodyForce: [1e-6, 0, 0],
  inertia: false,
  precision: values.precision,
  threads: Number(values.threads),
  ...(mpi ? { mpi } : {}),
});
// Warm-up (first touch of the populations), then the timed steps in one run() call.
await lattice.run({ maxSteps: 3, tolerance: 0 });
const before = lattice.slab;
mpi?.barrier();
const start = performance.now();
await lattice.run({ maxSteps: steps, tolerance: 0, checkInterval: steps });
const seconds = (performance.now() - start) / 1e3;
const after = lattice.slab;
console.log(
  JSON.stringify({
    rank: after?.rank ?? 0,
    seconds,
    pores,
    steps,
    stepSeconds: after ? after.stepSeconds - before.stepSeconds : seconds,
    haloSeconds: after ? after.haloSeconds - before.haloSeconds : 0,
  }),
);
lattice.release();
