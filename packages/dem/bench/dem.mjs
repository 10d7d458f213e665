// Benchmark: a bed of 32,768 spheres settling under gravity (Hookean contacts,
// friction 0.5, periodic in x and y, floor wall), through the JS API and with
// LAMMPS on the same case (native-test/in.bed) in the same run, on 1 and 2
// threads (ours: the fastest of 3 alternating timed calls per thread count).
// Prints particle-steps/s and the ratios, then the cost of small calls measured
// in the same run (a few seconds): \`new Simulation\` (Hertz–Mindlin with a restitution not
// seen before, which solves for the damping, and repeated, which finds it memoized; linear)
// and the fixed cost of one native call, step(1) against the per-step time of step(100) on
// 1,000 spheres of the bed (each call snapshots the state for its rollback).
//
//   pnpm bench [timed steps, default 2000]
//
// The bed is deposited once through the JS API and cached as a LAMMPS data
// file in node_modules/.cache/dem-bench/bed.data (written atomically; outside
// build/, which every rebuild of the addon wipes).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { finalize, Simulation } from '../dist/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = join(root, 'node_modules', '.cache', 'dem-bench');
const dataFile = join(work, 'bed.data');
const input = join(root, 'native-test', 'in.bed');
const steps = Number(process.argv[2] ?? 2000);

// The case; keep in sync with native-test/in.bed.
const SIDE = 32;
const HEIGHT = 80;
const SPHERES = 32768;
const options = (threads, timestep = 3e-4, restitution = 0.5) => ({
  box: { min: [0, 0, 0], max: [SIDE, SIDE, HEIGHT] },
  periodic: [true, true, false],
  gravity: [0, 0, -10],
  timestep,
  skin: 0.1,
  threads,
  contact: { model: 'linear', stiffness: 1e4, restitution, friction: 0.5 },
});

function prepare() {
  mkdirSync(work, { recursive: true });
  console.log(`preparing the bed of ${SPHERES} spheres (once, cached in ${dataFile}) ...`);
  const started = performance.now();
  // Coarser while preparing: only the packing matters, and the bed need not be at rest.
  const simulation = new Simulation(options(undefined, 9e-4, 0.2));
  const report = simulation.deposit({ count: SPHERES, radius: 0.5, density: 1, seed: 7, maxSteps: 6000 });
  console.log(`  ${report.steps} steps in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const x = simulation.positions;
  const r = simulation.radii;
  const lines = [`bed of ${SPHERES} spheres for the DEM benchmark`, '', `${SPHERES} atoms`, '1 atom types', ''];
  lines.push(`0 ${SIDE} xlo xhi`, `0 ${SIDE} ylo yhi`, `0 ${HEIGHT} zlo zhi`, '', 'Atoms # sphere', '');
  for (let i = 0; i < SPHERES; i++) lines.push(`${i + 1} 1 ${2 * r[i]} 1 ${x[3 * i]} ${x[3 * i + 1]} ${x[3 * i + 2]}`);
  simulation.release();
  writeFileSync(`${dataFile}.tmp`, `${lines.join('\n')}\n`);
  renameSync(`${dataFile}.tmp`, dataFile);
}

function readBed() {
  const positions = [];
  const radii = [];
  let atoms = false;
  for (const line of readFileSync(dataFile, 'utf8').split('\n')) {
    if (line.startsWith('Atoms')) atoms = true;
    else if (atoms && line.trim()) {
      const [, , diameter, , x, y, z] = line.trim().split(/\s+/).map(Number);
      positions.push(x, y, z);
      radii.push(diameter / 2);
    }
  }
  return { positions: Float64Array.from(positions), radii: Float64Array.from(radii) };
}

// peclet/dem on 1 and 2 threads: one simulation each, warmed up, then `ROUNDS` timed calls of
// `steps` steps, alternating between the two; the fastest call of each counts (a shared machine
// only ever slows a run down, by other load or by its hypervisor taking the CPU).
const ROUNDS = 3;
function ours(bed) {
  const simulations = [1, 2].map((threads) => {
    const simulation = new Simulation(options(threads));
    simulation.addSpheres({ ...bed, density: 1 });
    simulation.step(200); // warm-up: lists built, buffers touched
    return simulation;
  });
  const best = [0, 0];
  for (let round = 0; round < ROUNDS; round++) {
    simulations.forEach((simulation, k) => {
      const started = performance.now();
      simulation.step(steps);
      const seconds = (performance.now() - started) / 1000;
      best[k] = Math.max(best[k], (SPHERES * steps) / seconds);
      console.log(
        `peclet/dem  threads ${k + 1}: ${steps} steps in ${seconds.toFixed(3)} s, Z ${simulation.coordinationNumber().toFixed(2)}`,
      );
    });
  }
  for (const simulation of simulations) simulation.release();
  return best;
}

// Median of `rounds` measurements of `measure()` (interleaved callers reduce the drift of a
// shared machine).
const median = (values) => values.toSorted((a, b) => a - b)[values.length >> 1];

// CPU time (µs) of one `new Simulation(make(i))`, averaged over `count` constructions.
function constructionMicroseconds(make, count) {
  const simulations = [];
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) simulations.push(new Simulation(make(i)));
  const used = process.cpuUsage(before);
  for (const simulation of simulations) simulation.release();
  return (used.user + used.system) / count;
}

// The cost of small calls: constructions and the fixed cost of one step() call.
function smallCalls(bed) {
  const box = { min: [0, 0, 0], max: [SIDE, SIDE, HEIGHT] };
  const hertz = (restitution) => ({ box, contact: { model: 'hertz-mindlin', youngsModulus: 1e7, restitution } });
  const linear = { box, contact: { model: 'linear', stiffness: 1e4, restitution: 0.5 } };
  new Simulation(hertz(0.5)).release(); // memoizes e = 0.5, loads everything once
  new Simulation(linear).release();
  const rounds = 5;
  const count = 40;
  const fresh = [];
  const repeated = [];
  const linearTimes = [];
  let next = 0;
  for (let round = 0; round < rounds; round++) {
    // Restitutions never used before in this process: each construction solves for the damping.
    fresh.push(constructionMicroseconds(() => hertz(0.2 + 1e-5 * next++), count));
    repeated.push(constructionMicroseconds(() => hertz(0.5), count));
    linearTimes.push(constructionMicroseconds(() => linear, count));
  }

  // The lowest 1,000 spheres of the bed: a bed of its own, a little over one layer deep.
  const N = 1000;
  const byHeight = Array.from(bed.radii.keys()).sort((a, b) => bed.positions[3 * a + 2] - bed.positions[3 * b + 2]);
  const positions = new Float64Array(3 * N);
  const radii = new Float64Array(N);
  byHeight.slice(0, N).forEach((i, k) => {
    positions.set(bed.positions.subarray(3 * i, 3 * i + 3), 3 * k);
    radii[k] = bed.radii[i];
  });
  const simulation = new Simulation(options(undefined));
  simulation.addSpheres({ positions, radii, density: 1 });
  simulation.step(200); // lists built, buffers touched, snapshot allocated
  const single = [];
  const hundred = [];
  for (let round = 0; round < rounds; round++) {
    let started = performance.now();
    for (let i = 0; i < 100; i++) simulation.step(1);
    single.push(((performance.now() - started) * 1000) / 100);
    started = performance.now();
    for (let i = 0; i < 2; i++) simulation.step(100);
    hundred.push(((performance.now() - started) * 1000) / 200);
  }
  simulation.release();
  return {
    fresh: median(fresh),
    repeated: median(repeated),
    linear: median(linearTimes),
    spheres: N,
    single: median(single),
    perStep: median(hundred),
  };
}

function ensureLammps() {
  const has = () => spawnSync('sh', ['-c', 'command -v lmp'], { stdio: 'ignore' }).status === 0;
  if (has()) return true;
  console.log('installing LAMMPS (Debian package) ...');
  spawnSync('sh', ['-c', 'apt-get update -qq && apt-get install -y -qq lammps'], { stdio: 'inherit' });
  return has();
}

function lammps(procs) {
  const args = ['-in', input, '-var', 'data', dataFile, '-var', 'steps', String(steps)];
  args.push('-log', join(work, `lammps${procs}.log`), '-echo', 'none', '-nocite');
  let output;
  try {
    output =
      procs === 1
        ? execFileSync('lmp', args, { encoding: 'utf8' })
        : execFileSync('mpirun', ['--allow-run-as-root', '--oversubscribe', '-np', String(procs), 'lmp', ...args], {
            encoding: 'utf8',
          });
  } catch {
    return Number.NaN;
  }
  // "Loop time of T on P procs for N steps with A atoms" of the timed run.
  const loops = [...output.matchAll(/^Loop time of (\S+) on \d+ procs for (\d+) steps with (\d+) atoms/gm)];
  const timed = loops.at(-1);
  if (!timed || Number(timed[2]) !== steps) return Number.NaN;
  console.log(
    `LAMMPS      ${procs === 1 ? 'serial' : `${procs} MPI procs`}: ${steps} steps in ${Number(timed[1]).toFixed(3)} s`,
  );
  return (Number(timed[3]) * steps) / Number(timed[1]);
}

if (!existsSync(dataFile)) prepare();
const bed = readBed();
if (bed.radii.length !== SPHERES)
  throw new Error(`expected ${SPHERES} spheres in ${dataFile}, read ${bed.radii.length}`);
const [ours1, ours2] = ours(bed);
const small = smallCalls(bed);
finalize();
const haveLammps = ensureLammps();
const lmp1 = haveLammps ? lammps(1) : Number.NaN;
const lmp2 = haveLammps ? lammps(2) : Number.NaN;

const fmt = (x) => (Number.isFinite(x) ? x.toPrecision(4) : 'n/a');
const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) ? (a / b).toFixed(2) : 'n/a');
console.log(`\nbed of ${SPHERES} spheres, Hookean contacts with friction 0.5, ${steps} timed steps`);
console.log(`${''.padEnd(32)}${'1 thread'.padStart(14)}${'2 threads'.padStart(14)}`);
console.log(`${'peclet/dem (particle-steps/s)'.padEnd(32)}${fmt(ours1).padStart(14)}${fmt(ours2).padStart(14)}`);
console.log(`${'LAMMPS (particle-steps/s)'.padEnd(32)}${fmt(lmp1).padStart(14)}${fmt(lmp2).padStart(14)}`);
console.log(`${'peclet/dem / LAMMPS'.padEnd(32)}${ratio(ours1, lmp1).padStart(14)}${ratio(ours2, lmp2).padStart(14)}`);
console.log(
  `${'2-thread speed-up'.padEnd(32)}${''.padStart(14)}${`${ratio(ours2, ours1)} (LAMMPS ${ratio(lmp2, lmp1)})`.padStart(14)}`,
);
console.log('(LAMMPS on 2 cores runs as 2 MPI processes: the Debian build has no OPENMP package.)');

{
  const { fresh, repeated, linear, spheres, single, perStep } = small;
  const us = (x) => (x >= 1000 ? `${(x / 1000).toPrecision(3)} ms` : `${x.toPrecision(3)} µs`);
  const row = (label, value, ratio) => console.log(`${label.padEnd(50)}${value.padStart(12)}${ratio.padStart(10)}`);
  console.log(`\nsmall calls (medians of 5 rounds; constructions: CPU time, 40 per round; steps: wall time)`);
  row('', 'cost', 'ratio');
  row('new Simulation, linear', us(linear), '1');
  row('new Simulation, Hertz–Mindlin, new restitution', us(fresh), (fresh / linear).toFixed(0));
  row('new Simulation, Hertz–Mindlin, repeated', us(repeated), (repeated / linear).toFixed(1));
  row(`step(100) per step, ${spheres} spheres`, us(perStep), '1');
  row(`step(1), ${spheres} spheres`, us(single), (single / perStep).toFixed(2));
  row('fixed cost per call: step(1) − step(100)/100', us(single - perStep), ((single - perStep) / perStep).toFixed(2));
}
