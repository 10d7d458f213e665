// Benchmark: a liquid-fluidized bed of 51,200 glass beads (d = 0.5 mm, 2500 kg/m³) in water,
// unresolved CFD-DEM on a 12 × 12 × 32 lattice of 1.5 mm cells (3 diameters), driven at a
// superficial velocity above minimum fluidization. Prints the time of one coupled step split
// into fluid, particles (the dem substeps) and coupling (void fraction, interpolation, drag,
// exchange, drive), beside the same work done alone in the same run: a bare @peclet/flow Lattice
// of the same shape (dense, f64, per-voxel porosity and force in use) taking the same step(1)
// calls, and a bare @peclet/dem Simulation of the same spheres (same state, the same external
// forces held) taking the same step(substeps) calls. All of it on 1 and 2 threads.
//
//   pnpm --filter @peclet/coupling bench [-- --steps 5 --rounds 3 --spheres 51200]
//
// Every object is built before the first timed call; the timed calls of the two thread counts
// alternate, round after round, and the fastest round of each figure counts (a shared machine
// only ever slows a call down). The ratios printed are measurements, the targets beside them
// are the issue's (not assertions).
import { execFileSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { finalize as finalizeDem, Simulation } from '@peclet/dem';
import { finalize as finalizeFlow, Lattice } from '@peclet/flow';
import { CoupledSimulation, finalize } from '../dist/index.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'), // pnpm passes a `--` through
  options: {
    steps: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    spheres: { type: 'string', default: '51200' },
  },
});
const STEPS = Number(values.steps); // coupled steps per timed call
const ROUNDS = Number(values.rounds);
const SPHERES = Number(values.spheres);
const THREADS = [1, 2];
for (const [name, value] of Object.entries({ steps: STEPS, rounds: ROUNDS, spheres: SPHERES })) {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`--${name} must be a positive integer`);
}

// The case (SI). Water and glass beads: a liquid bed, whose fluid-side drag is mild enough for
// a fluid step of several dem steps.
const d = 5e-4; // sphere diameter (m)
const rhoP = 2500; // glass (kg/m³)
const rhoF = 1000; // water
const mu = 1e-3; // Pa·s
const g = 9.81;
const cell = 3 * d; // fluid cell (m)
const shape = [12, 12, 32];
const [Lx, Ly, Lz] = shape.map((n) => n * cell);
const mass = (rhoP * Math.PI * d ** 3) / 6;
// Hookean contacts: the stiffness keeps the mean overlap of a settled bed of this depth under 1%
// of the radius; the dem step is contact time / 50.
const stiffness = 10; // N/m
const contactTime = Math.PI * Math.sqrt(mass / 2 / stiffness);
const demTimestep = contactTime / 50;
// Minimum fluidization by Wen & Yu (1966): Re_mf = √(33.7² + 0.0408 Ar) − 33.7.
const archimedes = (d ** 3 * rhoF * (rhoP - rhoF) * g) / mu ** 2;
const minimumFluidization = ((Math.sqrt(33.7 ** 2 + 0.0408 * archimedes) - 33.7) * mu) / (rhoF * d);
const superficialVelocity = 4 * minimumFluidization;

// The spheres start on a jittered cubic lattice of pitch 1.06 d from the floor (solid fraction
// about 0.44: the expanded bed a velocity of a few U_mf holds), at rest.
function initialPositions() {
  const pitch = 1.06 * d;
  const across = [Math.floor(Lx / pitch), Math.floor(Ly / pitch)];
  const layers = Math.ceil(SPHERES / (across[0] * across[1]));
  if ((layers + 1) * pitch > 0.8 * Lz) throw new RangeError(`${SPHERES} spheres do not fit the box`);
  const positions = new Float64Array(3 * SPHERES);
  let seed = 12345;
  const jitter = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return (seed / 2 ** 31 - 0.5) * 0.05 * d;
  };
  for (let i = 0; i < SPHERES; i++) {
    const a = i % across[0];
    const b = Math.floor(i / across[0]) % across[1];
    const c = Math.floor(i / (across[0] * across[1]));
    positions[3 * i] = ((a + 0.5) * Lx) / across[0] + jitter();
    positions[3 * i + 1] = ((b + 0.5) * Ly) / across[1] + jitter();
    positions[3 * i + 2] = (c + 0.5) * pitch + d / 2 + jitter();
  }
  return { positions, layers };
}

const demOptions = (threads) => ({
  box: { min: [0, 0, 0], max: [Lx, Ly, Lz] },
  periodic: [true, true, false], // walls on z: the floor is the distributor
  gravity: [0, 0, -g],
  timestep: demTimestep,
  threads,
  contact: { model: 'linear', stiffness, restitution: 0.5, friction: 0.3 },
});

const fmt = (x, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');
const ms = (seconds) => fmt(seconds * 1e3, 1);

// Load first: a busy machine halves every figure here.
const load = loadavg()[0];
let uptime = '';
try {
  uptime = execFileSync('uptime', { encoding: 'utf8' }).trim();
} catch {
  uptime = `load average ${load.toFixed(2)}`;
}
console.log(`@peclet/coupling benchmark, ${new Date().toISOString()}, ${availableParallelism()} CPUs`);
console.log(`uptime: ${uptime}`);
if (load > 0.5)
  console.log(`  (load ${load.toFixed(2)}: other work shares these cores, and the figures below are slower for it)`);

// 1. Build everything: per thread count a dem Simulation and its CoupledSimulation, warmed up;
//    then, from that state, a bare dem Simulation and a bare Lattice.
const built = performance.now();
const { positions, layers } = initialPositions();
const radii = new Float64Array(SPHERES).fill(d / 2);
const cases = THREADS.map((threads) => {
  const particles = new Simulation(demOptions(threads));
  particles.addSpheres({ positions, radii, density: rhoP });
  const constructing = performance.now();
  const coupled = new CoupledSimulation({
    particles,
    fluid: {
      cellSize: cell,
      viscosity: mu,
      density: rhoF,
      drive: { superficialVelocity: [0, 0, superficialVelocity] },
      periodic: true,
    },
    drag: 'di-felice',
    threads,
  });
  return { threads, particles, coupled, construction: (performance.now() - constructing) / 1e3 };
});
const plan = cases[0].coupled.timestepReport;
const substeps = plan.substeps;
for (const c of cases) {
  c.coupled.step(2); // the fluid's field develops, arrays and lists are touched
  const bare = new Simulation(demOptions(c.threads));
  bare.addSpheres({
    positions: c.particles.positions,
    radii,
    density: rhoP,
    velocities: c.particles.velocities,
  });
  bare.externalForces.set(c.particles.externalForces); // the drag held, so the bed stays as it is
  bare.step(substeps);
  const lattice = new Lattice({
    shape,
    periodic: true,
    viscosity: plan.latticeViscosity,
    precision: 'f64',
    layout: 'dense',
    threads: c.threads,
  });
  // The coupled lattice's load: its void fraction, its drive, the drag's reaction per cell.
  const forceScale = (rhoF * cell) / plan.timestep ** 2;
  const drive = c.coupled.drive.map((x) => x / forceScale);
  lattice.bodyForce = drive;
  lattice.porosity.set(c.coupled.voidFraction);
  const force = lattice.force;
  const porosity = lattice.porosity;
  for (let k = 0; k < porosity.length; k++) force[3 * k + 2] = -(1 - porosity[k]) * drive[2];
  lattice.step(1);
  c.bare = bare;
  c.lattice = lattice;
  c.best = { coupled: Infinity, split: undefined, dem: Infinity, flow: Infinity };
}
const setupSeconds = (performance.now() - built) / 1e3;
console.log(
  `\nfluidized bed: ${SPHERES} glass beads of ${d * 1e3} mm (${rhoP} kg/m³) in water, ${layers} layers at the start; ` +
    `${shape.join(' × ')} cells of ${cell * 1e3} mm, periodic fluid, dem walls on z`,
);
console.log(
  `  U = ${(superficialVelocity * 1e3).toFixed(2)} mm/s = ${(superficialVelocity / minimumFluidization).toFixed(1)} U_mf ` +
    `(Wen–Yu U_mf ${(minimumFluidization * 1e3).toFixed(2)} mm/s), Di Felice drag`,
);
console.log(
  `  fluid step ${plan.timestep.toExponential(3)} s = ${substeps} dem steps of ${plan.demTimestep.toExponential(3)} s ` +
    `(limits: viscous ${plan.limits.viscous.toExponential(2)}, Mach ${plan.limits.mach.toExponential(2)}, ` +
    `particle drag ${plan.limits.particleDrag.toExponential(2)}, pressure ${plan.limits.pressure.toExponential(2)} s); ` +
    `lattice viscosity ${plan.latticeViscosity.toFixed(4)}`,
);
console.log(
  `  set-up and warm-up ${setupSeconds.toFixed(1)} s, of which new CoupledSimulation ${cases.map((c) => `${c.construction.toFixed(1)} s`).join(' and ')}`,
);

// 2. Timed rounds: per thread count, STEPS coupled steps, then the bare dem and the bare lattice
//    doing the same calls.
const timed = (work) => {
  const start = performance.now();
  work();
  return (performance.now() - start) / 1e3;
};
for (let round = 0; round < ROUNDS; round++) {
  const line = [];
  for (const c of cases) {
    const before = c.coupled.timings;
    const coupled = timed(() => c.coupled.step(STEPS)) / STEPS;
    const after = c.coupled.timings;
    const split = Object.fromEntries(Object.keys(after).map((k) => [k, (after[k] - before[k]) / STEPS]));
    const dem = timed(() => {
      for (let s = 0; s < STEPS; s++) c.bare.step(substeps);
    });
    const flow = timed(() => {
      for (let s = 0; s < STEPS; s++) c.lattice.step(1);
    });
    if (coupled < c.best.coupled) {
      c.best.coupled = coupled;
      c.best.split = split;
    }
    c.best.dem = Math.min(c.best.dem, dem / STEPS);
    c.best.flow = Math.min(c.best.flow, flow / STEPS);
    line.push(
      `${c.threads} thread(s): coupled ${ms(coupled)} ms, dem ${ms(dem / STEPS)} ms, flow ${ms(flow / STEPS)} ms`,
    );
  }
  console.log(`  round ${round + 1}: ${line.join('; ')}`);
}

// 3. The state reached: still a fluidized bed?
const report = cases[0].coupled.step(0);
let top = 0;
const z = cases[0].particles.positions;
for (let i = 2; i < z.length; i += 3) top = Math.max(top, z[i]);
console.log(
  `  state: t = ${(cases[0].coupled.time * 1e3).toFixed(1)} ms, highest sphere at ${(top * 1e3).toFixed(1)} mm, ` +
    `densest cell ε = ${fmt(report.minVoidFraction, 3)}, largest Re_p ${fmt(report.maxReynolds, 1)}, ` +
    `Δp ${fmt(cases[0].coupled.pressureDrop('z'), 1)} Pa (bed weight ${fmt((SPHERES * (mass / rhoP) * (rhoP - rhoF) * g) / (Lx * Ly), 1)} Pa)`,
);

// 4. The figures.
const pad = (cells) =>
  console.log(
    cells
      .map((c, i) =>
        String(c)
          .padStart(i === 0 ? 0 : 12)
          .padEnd(i === 0 ? 40 : 0),
      )
      .join(''),
  );
console.log(`\nper coupled step (ms, fastest of ${ROUNDS} rounds of ${STEPS} steps)`);
pad(['', ...THREADS.map((t) => `${t} thread${t > 1 ? 's' : ''}`), 'target']);
const column = (f) => cases.map((c) => f(c));
const split = (c, k) => c.best.split[k];
pad(['  fluid (Lattice.step(1))', ...column((c) => ms(split(c, 'fluid')))]);
pad([`  particles (${substeps} dem steps)`, ...column((c) => ms(split(c, 'particles')))]);
pad(['  coupling (exchange and drive)', ...column((c) => ms(split(c, 'coupling')))]);
pad(['  coupled step', ...column((c) => ms(c.best.coupled))]);
pad(['  coupling per sphere and exchange (µs)', ...column((c) => fmt((1e6 * split(c, 'coupling')) / SPHERES, 2))]);
pad([
  '  coupling share of the coupled step',
  ...column((c) => `${fmt((100 * split(c, 'coupling')) / c.best.coupled, 1)}%`),
  '≤ 20%',
]);
pad(['flow alone (same lattice, step(1))', ...column((c) => ms(c.best.flow))]);
pad([`dem alone (same spheres, step(${substeps}))`, ...column((c) => ms(c.best.dem))]);
pad(['coupled / (flow alone + dem alone)', ...column((c) => fmt(c.best.coupled / (c.best.flow + c.best.dem), 3))]);
const [one, two] = cases;
const speedUp = (f) => fmt(f(one) / f(two));
console.log('\nspeed-up from 1 to 2 threads');
pad(['  coupled step', speedUp((c) => c.best.coupled), '', '≥ 1.7']);
pad(['  of which fluid', speedUp((c) => split(c, 'fluid'))]);
pad(['  of which particles', speedUp((c) => split(c, 'particles'))]);
pad(['  of which coupling', speedUp((c) => split(c, 'coupling'))]);
pad(['  flow alone', speedUp((c) => c.best.flow)]);
pad(['  dem alone', speedUp((c) => c.best.dem)]);
console.log(
  `\n(${SPHERES} spheres × ${substeps} dem steps per coupled step: ` +
    `${cases.map((c) => `${((SPHERES * substeps) / c.best.coupled / 1e6).toFixed(2)}·10⁶`).join(' and ')} particle-steps/s coupled, ` +
    `${cases.map((c) => `${((SPHERES * substeps) / c.best.dem / 1e6).toFixed(2)}·10⁶`).join(' and ')} alone)`,
);

for (const c of cases) {
  c.coupled.release();
  c.lattice.release();
  c.bare.release();
  c.particles.release();
}
finalize();
finalizeFlow();
finalizeDem();
