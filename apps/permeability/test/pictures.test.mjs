// The pictures of the pipeline, from a real run on a small packing: the speed map is the sample
// alone (no buffer layers) in physical units with its colour bar, axes and scale bar, and the
// report adds the network and the three permeabilities; SVG and PNG alike.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { it } from 'node:test';
import { checkPicture, embeddedRaster } from '@peclet/plot/check';

const app = join(import.meta.dirname, '..');
const out = join(app, 'out');

it('velocity and report pages of a packing of 240 spheres at 10 voxels per diameter', () => {
  const s = JSON.parse(
    execFileSync(process.execPath, [join(app, 'src', 'main.mjs'), '--json', '--resolution', '10'], {
      encoding: 'utf8',
      timeout: 300_000,
    }),
  );
  const [n0, n1] = s.voxels;
  // A 480 px square map on the 50³ cube: axes, colour bar and caption around it.
  const velocity = checkPicture(join(out, 'velocity.svg'), {
    width: 90 + 480 + 160,
    height: 60 + 480 + 110,
    pngPath: join(out, 'velocity.png'),
    texts: [
      '|u| on the mid-plane of the sample',
      /^\|u\| \((mm|µm)\/s\)$/,
      /^x \((mm|µm)\)$/,
      /^y \((mm|µm)\)$/,
      /^[\d.]+ (mm|µm)$/,
      'flow along x',
    ],
  });
  // The map is the sample alone: its raster is a whole multiple of the image's n0 × n1 voxels.
  const raster = embeddedRaster(velocity.svg);
  const scale = raster.width / n0;
  assert.ok(Number.isInteger(scale) && raster.height === n1 * scale, `raster ${raster.width} × ${raster.height}`);
  const report = checkPicture(join(out, 'report.svg'), {
    width: 90 + 400 + 170 + 400 + 130,
    height: 60 + 400 + 130 + 300,
    pngPath: join(out, 'report.png'),
    texts: [
      /^Permeability of a packing of 240 spheres/,
      /^\|u\| \(/,
      /^throat diameter \(/,
      'permeability (D)',
      'Kozeny–Carman',
      'pore network',
      'direct (LBM)',
    ],
  });
  // Each bar is labelled with its own value.
  for (const k of [s.permeability.kozenyCarman, s.permeability.network, s.permeability.direct]) {
    const label = `${(k / 9.869233e-13).toPrecision(3)} D`;
    assert.ok(report.labels.includes(label), `${label} in ${report.labels.join('|')}`);
  }
});
