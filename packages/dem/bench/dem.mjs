// Benchmark: a bed of 32,768 spheres settling under gravity (Hookean contacts,
// friction 0.5, periodic in x and y, floor wall), through the JS API and with
// LAMMPS on the same case (native-test/in.bed) in the same run, on 1 and 2
// threads. Prints particle-steps/s and the ratios.
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

function ours(bed, threads) {
  const simulation = new Simulation(options(threads));
  simulation.addSpheres({ ...bed, density: 1 });
  simulation.step(200); // warm-up: lists built, buffers touched
  const started = performance.now();
  simulation.step(steps);
  const seconds = (performance.now() - started) / 1000;
  const rate = (SPHERES * steps) / seconds;
  console.log(
    `peclet/dem  threads ${threads}: ${steps} steps in ${seconds.toFixed(3)} s, Z ${simulation.coordinationNumber().toFixed(2)}`,
  );
  simulation.release();
  return rate;
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
const ours1 = ours(bed, 1);
const ours2 = ours(bed, 2);
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
