// The permeability pipeline, five modules in one script: a polydisperse sphere packing (dem) or a
// micro-CT image, its permeability three independent ways — Kozeny–Carman (voro's Laguerre
// cells, or the image's porosity and surface), the pore network (pnm) and lattice Boltzmann
// (flow) — their ratios, and the porosity each sees. Writes out/: flow.vti and network.vtp for
// ParaView, velocity.svg/.png (the speed on the mid-plane), report.svg/.png, and with --json a
// summary on stdout.
//   node src/main.mjs [--spheres N] [--resolution R] [--seed S] [--json]
//   node src/main.mjs --image berea [--size N]          the bundled Berea sandstone (200³, 5.345 µm)
//   node src/main.mjs --image file.raw --shape a,b,c --voxel-size m     (or .npy/.npz/.tif)
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { readImage } from '@peclet/io';
import cliProgress from 'cli-progress';
import {
  depositPacking,
  directPermeability,
  imageKozenyCarman,
  kozenyCarman,
  networkPermeability,
  voxelPorosity,
} from './pipeline.mjs';
import { sampleSpeed, writePictures } from './report.mjs';

const here = import.meta.dirname ?? new URL('.', import.meta.url).pathname;
const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    spheres: { type: 'string', default: '240' },
    resolution: { type: 'string', default: '20' },
    seed: { type: 'string', default: '1' },
    image: { type: 'string' },
    size: { type: 'string' },
    shape: { type: 'string' },
    'voxel-size': { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const integer = (text, name, min, max) => {
  const x = Number(text);
  if (!Number.isInteger(x) || x < min || x > max)
    throw new RangeError(`--${name} must be an integer in [${min}, ${max}], got ${text}`);
  return x;
};
const log = values.json ? () => {} : (line) => console.log(line);
const started = performance.now();
const stage = (text) => log(`[${((performance.now() - started) / 1e3).toFixed(1).padStart(6)} s] ${text}`);

let image;
let kc;
let spheresPorosity;
let source;
if (values.image === undefined) {
  const spheres = integer(values.spheres, 'spheres', 150, 20000);
  const resolution = integer(values.resolution, 'resolution', 4, 100);
  const seed = integer(values.seed, 'seed', 0, 2 ** 31 - 1);
  stage(`dem: depositing ${spheres} glass beads (radii 0.40–0.50 mm) in a column periodic along x and y`);
  const { packing, region } = depositPacking({ spheres, seed });
  spheresPorosity = 1 - packing.packingFraction(region);
  stage('voro: Laguerre cells → Kozeny–Carman');
  kc = kozenyCarman(packing, region);
  stage(`dem: voxelizing the middle cube, ${resolution} voxels across the smallest sphere`);
  const width = region.max[0] - region.min[0];
  let smallest = Number.POSITIVE_INFINITY;
  for (const r of packing.radii) smallest = Math.min(smallest, r);
  // Whole voxels across the periodic width, at least `resolution` across the smallest sphere.
  const voxelSize = width / Math.ceil((width * resolution) / (2 * smallest));
  image = packing.voxelize({ voxelSize, region });
  packing.release();
  source = `a packing of ${spheres} spheres (seed ${seed}), its middle ${image.shape.join('×')} voxels of ${(image.voxelSize * 1e6).toFixed(1)} µm`;
} else {
  if (values.image === 'berea') {
    const size = integer(values.size ?? '200', 'size', 16, 200);
    const raw = gunzipSync(
      readFileSync(join(here, '..', '..', '..', 'packages', 'flow', 'test', 'fixtures', 'berea-200.raw.gz')),
    );
    const solid = new Uint8Array(size ** 3);
    for (let i = 0; i < size; i++)
      for (let j = 0; j < size; j++)
        solid.set(raw.subarray((i * 200 + j) * 200, (i * 200 + j) * 200 + size), (i * size + j) * size);
    image = { solid, shape: [size, size, size], voxelSize: 5.345e-6 };
    source = `the Berea sandstone, ${size}³ voxels of 5.345 µm`;
  } else {
    const voxelSize = Number(values['voxel-size']);
    const shape = values.shape?.split(',').map(Number);
    image = await readImage(values.image, { voxelSize, ...(shape ? { shape } : {}) });
    source = `${values.image}, ${image.shape.join('×')} voxels of ${(image.voxelSize * 1e6).toFixed(3)} µm`;
  }
  stage('Kozeny–Carman from the image (porosity, surface from voxel faces × 2/3)');
  kc = imageKozenyCarman(image);
}
const eps = voxelPorosity(image);
stage(`pnm: extracting the pore network of ${image.shape.join('×')} voxels`);
const net = await networkPermeability(image, { onStage: stage });
stage(`pnm: ${net.pores} pores, ${net.throats} throats; Stokes flow along x`);
stage('flow: lattice Boltzmann along x');
const bar = values.json
  ? undefined
  : new cliProgress.SingleBar(
      { format: '         flow {bar} {percentage}% of the digits to converge | residual {residual}', hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
const tolerance = 1e-4;
bar?.start(100, 0, { residual: '-' });
// The packing's cube spans the column's periodic width; an image's sides are not neighbours.
const sides = values.image === undefined ? 'periodic' : 'sealed';
const direct = await directPermeability(image, {
  sides,
  tolerance,
  onProgress: ({ residual }) => {
    if (!(residual > 0)) return;
    const done = Math.min(99, Math.max(0, Math.round((100 * Math.log10(residual)) / Math.log10(tolerance))));
    bar?.update(done, { residual: residual.toExponential(2) });
  },
});
bar?.update(100, { residual: direct.residual.toExponential(2) });
bar?.stop();

const out = join(here, '..', 'out');
mkdirSync(out, { recursive: true });
const lattice = direct.lattice;
await lattice.writeVti(join(out, 'flow.vti'), { voxelSize: image.voxelSize });
await net.network.writeVtp(join(out, 'network.vtp'));
const summary = {
  source,
  voxels: image.shape,
  voxelSize: image.voxelSize,
  porosity: { spheres: spheresPorosity, voxels: eps, network: net.porosity, kozenyCarman: kc.porosity },
  permeability: {
    kozenyCarman: kc.permeability,
    network: net.permeability,
    direct: direct.permeability,
    networkShapeFactor: net.shapeFactor.permeability,
    networkHagenPoiseuille: net.hagenPoiseuille.permeability,
  },
  ratios: {
    directOverNetwork: direct.permeability / net.permeability,
    directOverKozenyCarman: direct.permeability / kc.permeability,
  },
  network: { pores: net.pores, throats: net.throats },
  flow: {
    axis: direct.axis,
    sides,
    steps: direct.steps,
    converged: direct.converged,
    residual: direct.residual,
    tortuosity: direct.tortuosity,
  },
  seconds: (performance.now() - started) / 1e3,
};
await writePictures(out, { summary, slice: sampleSpeed(image, direct), network: net.network, image });
lattice.release();
net.network.release();
if (values.json) {
  console.log(JSON.stringify(summary, null, 2));
} else {
  const d = (k) => `${(k / 9.869233e-13).toFixed(k < 9.869233e-13 ? 3 : 1)} D`;
  console.log(`\n${source}`);
  console.log(
    `  porosity       spheres ${spheresPorosity?.toFixed(4) ?? '—'}, voxels ${eps.toFixed(4)}, network ${net.porosity.toFixed(4)}, Laguerre cells / image ${kc.porosity.toFixed(4)}`,
  );
  console.log(`  Kozeny–Carman  ${d(kc.permeability)}`);
  console.log(
    `  network        ${d(net.permeability)} (pnm's default conductances; ${d(net.shapeFactor.permeability)} shape factor, ${d(net.hagenPoiseuille.permeability)} Hagen–Poiseuille)`,
  );
  console.log(
    `  direct (LBM)   ${d(direct.permeability)} (${sides} sides, ${direct.steps} steps, ${direct.converged ? 'converged' : 'NOT converged'})`,
  );
  console.log(
    `  ratios         direct / network ${summary.ratios.directOverNetwork.toFixed(2)}, direct / Kozeny–Carman ${summary.ratios.directOverKozenyCarman.toFixed(2)}`,
  );
  console.log(
    `  wrote out/flow.vti, out/network.vtp, out/velocity.svg and .png, out/report.svg and .png in ${summary.seconds.toFixed(1)} s`,
  );
}
