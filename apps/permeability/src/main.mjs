// Permeability of the Berea sandstone (200³ voxels of 5.345 µm, 1 = solid) along x, with a
// progress bar; writes out/berea-flow.vti (solid, density, velocity for ParaView) and
// out/berea-velocity.png (velocity magnitude on the mid-plane z = 100, solid in gray), and prints
// k beside the published direct-simulation value of the full 400³ image.
//   node src/main.mjs [size] [drive]     size: the cube [0, size)³ of the sample (default 200)
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { permeability } from '@peclet/flow';
import { sliceOf, writePng } from '@peclet/io';
import cliProgress from 'cli-progress';

const here = import.meta.dirname ?? new URL('.', import.meta.url).pathname;
const size = Number(process.argv[2] ?? 200);
const drive = process.argv[3] ?? 'body-force';
if (!Number.isInteger(size) || size < 8 || size > 200) throw new RangeError('size must be an integer in [8, 200]');

// The image ships with @peclet/flow's tests (see ../../../packages/flow/test/fixtures).
const raw = gunzipSync(
  readFileSync(join(here, '..', '..', '..', 'packages', 'flow', 'test', 'fixtures', 'berea-200.raw.gz')),
);
const solid = new Uint8Array(size ** 3);
for (let i = 0; i < size; i++) {
  for (let j = 0; j < size; j++) {
    const from = (i * 200 + j) * 200;
    solid.set(raw.subarray(from, from + size), (i * size + j) * size);
  }
}
const image = { solid, shape: [size, size, size], voxelSize: 5.345e-6 };

const bar = new cliProgress.SingleBar(
  { format: 'flow {bar} {percentage}% of the digits to converge | residual {residual}', hideCursor: true },
  cliProgress.Presets.shades_classic,
);
// The residual falls geometrically: show progress as digits gained towards the tolerance.
const tolerance = 1e-6;
bar.start(100, 0, { residual: '-' });
const started = performance.now();
const result = await permeability(image, {
  axis: 'x',
  drive,
  tolerance,
  onProgress: ({ residual }) => {
    if (!(residual > 0)) return;
    const done = Math.min(99, Math.max(0, Math.round((100 * Math.log10(residual)) / Math.log10(tolerance))));
    bar.update(done, { residual: residual.toExponential(2) });
  },
});
bar.update(100, { residual: result.residual.toExponential(2) });
bar.stop();
const seconds = (performance.now() - started) / 1e3;

const out = join(here, '..', 'out');
mkdirSync(out, { recursive: true });
const { lattice } = result;
await lattice.writeVti(join(out, 'berea-flow.vti'), { voxelSize: image.voxelSize });
const buffer = result.latticeUnits.buffer;
const slice = sliceOf(lattice.velocity, lattice.shape, { axis: 'z', index: Math.floor(size / 2), components: 3 });
const mask = new Uint8Array(slice.width * slice.height);
const plane = sliceOf(lattice.density, lattice.shape, { axis: 'z', index: Math.floor(size / 2) });
for (let i = 0; i < mask.length; i++) mask[i] = plane.data[i] === 0 ? 1 : 0;
await writePng(join(out, 'berea-velocity.png'), slice, { colormap: 'viridis', mask });
lattice.release();

const published = { x: 1360, mean: 1286 }; // mD, direct simulation of the full 400³ image (OpenPNM's Berea example)
console.log(
  `\nBerea sandstone ${size}³ at ${image.voxelSize * 1e6} µm, flow along x (${drive}, ${buffer} buffer layers each end)`,
);
console.log(`  porosity     ${result.porosity.toFixed(4)}`);
console.log(`  permeability ${result.millidarcy.toFixed(0)} mD  (${result.permeability.toExponential(3)} m²)`);
console.log(
  `  published    Kx ${published.x} mD, mean ${published.mean} mD for the full 400³ image — ratio ${(result.millidarcy / published.x).toFixed(2)}`,
);
console.log(`  tortuosity   ${result.tortuosity.toFixed(3)}`);
console.log(
  `  ${result.steps} steps, ${result.converged ? 'converged' : 'NOT converged'} (residual ${result.residual.toExponential(2)}), ${result.layout} layout, ${seconds.toFixed(1)} s`,
);
console.log(`  wrote ${join('out', 'berea-flow.vti')} and ${join('out', 'berea-velocity.png')}`);
console.log('  (a 200³ subvolume is smaller than a representative volume: expect tens of percent from the full image)');
