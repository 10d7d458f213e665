// Deposits a polydisperse packing under gravity (@peclet/dem), tessellates it
// into Laguerre cells weighted by the sphere radii (@peclet/voro), and reports
// the global packing fraction, a histogram of local packing fractions (sphere
// volume / cell volume), and a picture of a vertical slice coloured by them (SVG and PNG).
//
//   pnpm --filter @peclet/app-packing start [count]
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Simulation } from '@peclet/dem';
import { writeFigure } from '@peclet/plot';
import { tessellate } from '@peclet/voro';
import { packingSliceSvg } from './slice.mjs';

const count = Number(process.argv[2] ?? 2000);
const side = 10; // box side (diameters of the median sphere ≈ 0.8)
const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'out');

function progressBar(label, fraction, detail = '') {
  const width = 30;
  const filled = Math.round(Math.max(0, Math.min(1, fraction)) * width);
  const line = `${label.padEnd(12)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}% ${detail}`;
  if (process.stdout.isTTY) process.stdout.write(`\r${line}`);
  else if (fraction >= 1) console.log(line);
}

// Dimensionless units: lengths in sphere diameters (~1), density 1, g = 1.
const simulation = new Simulation({
  box: { min: [0, 0, 0], max: [side, side, 40] },
  periodic: [true, true, false],
  gravity: [0, 0, -1],
  timestep: 4e-4, // about contact time / 20 for the smallest pair
  contact: { model: 'linear', stiffness: 1e4, restitution: 0.2, friction: 0.5 },
});

const started = performance.now();
// Settled once the mean kinetic energy per sphere is below 1e-5 · m·g·d of a median sphere.
const threshold = 1e-5 * ((4 / 3) * Math.PI * 0.4 ** 3) * 0.8;
let firstEnergy;
let shown = 0;
const report = await simulation.depositAsync({
  count,
  radius: { kind: 'lognormal', medianRadius: 0.4, logStandardDeviation: 0.25, minRadius: 0.25, maxRadius: 0.65 },
  density: 1,
  seed: 42,
  maxSteps: 60_000,
  kineticEnergyThreshold: threshold,
  onProgress: ({ kineticEnergyPerSphere, steps }) => {
    // Settling is judged on kinetic energy: show its progress on a log scale.
    firstEnergy ??= kineticEnergyPerSphere;
    const f = Math.log(firstEnergy / kineticEnergyPerSphere) / Math.log(firstEnergy / threshold);
    shown = Math.max(shown, Number.isFinite(f) ? Math.min(f, 0.99) : 0);
    progressBar('depositing', shown, `${steps} steps`);
  },
});
progressBar('depositing', 1, `${report.steps} steps, settled: ${report.settled}`);
if (process.stdout.isTTY) process.stdout.write('\n');

const positions = simulation.positions.slice();
const radii = simulation.radii.slice();
let top = 0;
let solid = 0;
for (let i = 0; i < count; i++) {
  top = Math.max(top, positions[3 * i + 2] + radii[i]);
  solid += (4 / 3) * Math.PI * radii[i] ** 3;
}
const margin = 2 * 0.65 * 2; // two largest diameters
const bulk = { min: [0, 0, margin], max: [side, side, top - margin] };
const bulkFraction = simulation.packingFraction(bulk);

progressBar('tessellating', 0.5);
const tessellation = tessellate(positions, {
  box: { min: [0, 0, 0], max: [side, side, top] },
  periodic: [true, true, false],
  radii,
});
progressBar('tessellating', 1, `${tessellation.size} Laguerre cells`);
if (process.stdout.isTTY) process.stdout.write('\n');
const volumes = tessellation.volumes;
const local = new Float64Array(count);
const inBulk = [];
let bulkSpheres = 0;
let bulkCells = 0;
for (let i = 0; i < count; i++) {
  const sphere = (4 / 3) * Math.PI * radii[i] ** 3;
  local[i] = sphere / volumes[i];
  const z = positions[3 * i + 2];
  if (z > bulk.min[2] && z < bulk.max[2]) {
    inBulk.push(local[i]);
    bulkSpheres += sphere;
    bulkCells += volumes[i];
  }
}

console.log(`\n${count} spheres (log-normal radii 0.25–0.65), ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.log(
  `packing fraction, whole bed (spheres / box up to the top sphere): ${(solid / (side * side * top)).toFixed(4)}`,
);
console.log(
  `packing fraction, bulk z in [${bulk.min[2].toFixed(1)}, ${bulk.max[2].toFixed(1)}]: ${bulkFraction.toFixed(4)}`,
);
console.log(`packing fraction, bulk spheres over their Laguerre cells: ${(bulkSpheres / bulkCells).toFixed(4)}`);
console.log(`coordination number: ${simulation.coordinationNumber().toFixed(2)}`);

// Histogram of local packing fractions in the bulk.
const lo = 0.3;
const hi = 0.9;
const bins = 24;
const counts = new Array(bins).fill(0);
for (const f of inBulk) counts[Math.min(bins - 1, Math.max(0, Math.floor(((f - lo) / (hi - lo)) * bins)))]++;
const most = Math.max(...counts);
const mean = inBulk.reduce((a, b) => a + b, 0) / inBulk.length;
const sd = Math.sqrt(inBulk.reduce((a, b) => a + (b - mean) ** 2, 0) / inBulk.length);
console.log(
  `\nlocal packing fraction (sphere / Laguerre cell), ${inBulk.length} bulk spheres: mean ${mean.toFixed(4)}, sd ${sd.toFixed(4)}`,
);
for (let b = 0; b < bins; b++) {
  const from = lo + ((hi - lo) * b) / bins;
  const bar = '█'.repeat(Math.round((counts[b] / most) * 50));
  console.log(`  ${from.toFixed(3)}–${(from + (hi - lo) / bins).toFixed(3)} ${String(counts[b]).padStart(5)} ${bar}`);
}

// The spheres cut by the plane y = side / 2, coloured by local packing fraction: SVG and PNG.
const svg = packingSliceSvg({ positions, radii, local, side, top, plane: side / 2, diameter: 0.8 });
const files = await writeFigure(svg, {
  svgPath: join(out, 'packing-slice.svg'),
  pngPath: join(out, 'packing-slice.png'),
});
console.log(`\nwrote ${files.join(', ')}`);
tessellation.release();
simulation.release();
