// Benchmark: executionSpace 'webgpu' against the host kernel on the same bed in the same run.
// A bed of frictional spheres (Hookean contacts kn = 10^4, friction 0.5, restitution 0.5,
// periodic in x and y, floor wall, g = 10, Δt = 3·10⁻⁴, diameter 1) is deposited on the host,
// then both execution spaces start from its positions and run the same steps. Prints
// particle-steps/s and the ratio webgpu / host.
//
//   node bench/gpu.mjs [spheres, default 8192] [timed steps, default 200]
//
// The webgpu figure includes the read-backs between slices of the run (a few per run). On a
// software adapter (Mesa llvmpipe) it is a smoke number, not a GPU measurement: the adapter is
// printed first.
import { gpuAvailable } from '@peclet/core/gpu';
import { finalizeAsync, gpuDevice, Simulation } from '../dist/index.js';

const spheres = Number(process.argv[2] ?? 8192);
const steps = Number(process.argv[3] ?? 200);
if (!Number.isInteger(spheres) || spheres < 64)
  throw new RangeError(`spheres: an integer ≥ 64, got ${process.argv[2]}`);
if (!Number.isInteger(steps) || steps < 1) throw new RangeError(`steps: an integer ≥ 1, got ${process.argv[3]}`);

const availability = await gpuAvailable();
if (!availability.available) {
  console.log(`no WebGPU here, nothing to compare: ${availability.reason}`);
  process.exit(0);
}
const device = await gpuDevice();
const info = device.adapterInfo;
console.log(`adapter: ${device.backend}, ${[info.vendor, info.device, info.description].filter(Boolean).join(' ')}`);

// A bed about as tall as wide: side² × height holds the spheres at packing fraction ~0.6.
const side = Math.max(4, Math.round(Math.cbrt((spheres * Math.PI) / 6 / 0.6)));
const height = Math.ceil((spheres * Math.PI) / 6 / 0.3 / side ** 2) + 2;
const options = (extra) => ({
  box: { min: [0, 0, 0], max: [side, side, height] },
  periodic: [true, true, false],
  gravity: [0, 0, -10],
  timestep: 3e-4,
  contact: { model: 'linear', stiffness: 1e4, restitution: 0.5, friction: 0.5 },
  ...extra,
});

console.log(`depositing ${spheres} spheres in a ${side} × ${side} × ${height} box on the host ...`);
const bed = new Simulation(options({ timestep: 9e-4 }));
bed.deposit({ count: spheres, radius: 0.5, density: 1, seed: 7, maxSteps: 4000 });
const positions = bed.positions.slice();
const radii = bed.radii.slice();
bed.release();

async function measure(label, extra, advance) {
  const simulation = new Simulation(options(extra));
  simulation.addSpheres({ positions, radii, density: 1 });
  await advance(simulation, 10); // warm-up: threads, device, kernels
  const started = performance.now();
  await advance(simulation, steps);
  const seconds = (performance.now() - started) / 1000;
  const rate = (spheres * steps) / seconds;
  console.log(`  ${label.padEnd(18)} ${rate.toExponential(3)} particle-steps/s (${seconds.toFixed(2)} s)`);
  simulation.release();
  return rate;
}

const host1 = await measure('host, 1 thread', { threads: 1 }, (s, n) => s.step(n));
const host = await measure('host, all threads', {}, (s, n) => s.step(n));
const gpu = await measure('webgpu', { executionSpace: 'webgpu' }, (s, n) =>
  s.run({ steps: n, progressInterval: 60_000 }),
);

console.log(`\n${spheres} spheres, ${steps} steps`);
console.log('| execution space | particle-steps/s | webgpu / this |');
console.log('| --- | --- | --- |');
console.log(`| host, 1 thread | ${host1.toExponential(3)} | ${(gpu / host1).toFixed(3)} |`);
console.log(`| host, all threads | ${host.toExponential(3)} | ${(gpu / host).toFixed(3)} |`);
console.log(`| webgpu (${device.backend}) | ${gpu.toExponential(3)} | 1 |`);
await finalizeAsync();
