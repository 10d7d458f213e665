// MFLUPS (fluid-node updates per second) of executionSpace 'webgpu' beside the host kernel (f32,
// sparse) on the same lattice, in one run: `node bench/gpu.mjs [n] [steps]`. On a software
// adapter (llvmpipe) the figure is a smoke number, not a GPU's.
import { gpuAvailable } from '@peclet/core/gpu';
import { finalize, gpuDevice, Lattice } from '../dist/index.js';
import { berea, crop } from '../test/helpers.mjs';

const n = Number(process.argv[2] ?? 64);
const steps = Number(process.argv[3] ?? 200);
const availability = await gpuAvailable();
if (!availability.available) {
  console.log(`webgpu unavailable: ${availability.reason}`);
  process.exit(0);
}
const image = crop(berea(), n);
const figures = {};
for (const space of ['host', 'webgpu']) {
  const lattice = new Lattice({
    shape: image.shape,
    solid: image.solid,
    bodyForce: [1e-5, 0, 0],
    inertia: false,
    precision: 'f32',
    layout: 'sparse',
    executionSpace: space,
  });
  await lattice.run({ maxSteps: 10, tolerance: 0 }); // warm up: device, pipelines, pool
  const started = performance.now();
  await lattice.run({ maxSteps: steps, tolerance: 0 });
  const seconds = (performance.now() - started) / 1000;
  figures[space] = (lattice.info.fluidNodes * steps) / seconds / 1e6;
  lattice.release();
}
const device = await gpuDevice();
const info = device.adapterInfo;
const adapter = [info.vendor, info.device, info.description].filter((s) => s !== '').join(' ') || 'unnamed';
console.log(`Berea crop ${n}³, f32 sparse, ${steps} steps`);
console.log(`host    ${figures.host.toFixed(2).padStart(8)} MFLUPS`);
console.log(
  `webgpu  ${figures.webgpu.toFixed(2).padStart(8)} MFLUPS  (${device.backend}: ${adapter})  ${(figures.webgpu / figures.host).toFixed(2)}× host`,
);
finalize();
